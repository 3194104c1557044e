/** Where an item of `mapWithConcurrency` runs, and how it gives up its place early. */
export type Slot = {
  /** Which of the concurrent workers runs it: 0 to limit - 1. */
  lane: number;
  /**
   * How many items the lane started before it. Two items of a lane whose turns have the same
   * parity never run at once, so they may share what is the lane's (a snapshot git dir).
   */
  turn: number;
  /** Lets the lane start its next item before this one has finished (see `isOverlapping`). */
  free: () => void;
};

/**
 * Runs `work` over `items` with at most `limit` at once, keeping the input order in the result.
 * `isOverlapping`: an item that calls `slot.free` lets its lane start the next one while it
 * finishes; the lane still runs at most two at once (the next but one waits for it to finish).
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  pool: { limit: number; isOverlapping: boolean },
  work: (item: T, slot: Slot) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  // After a failure no new item starts, but the running ones finish (and clean up their
  // commands) before it is thrown: the process exits right after.
  let failure: { error: unknown } | undefined;
  const worker = async (lane: number) => {
    // The lane's last two items, by turn parity: an item waits for the one two turns before it.
    const finishing: Promise<void>[] = [Promise.resolve(), Promise.resolve()];
    for (let turn = 0; ; turn += 1) {
      await finishing[turn % 2];
      const index = next++;
      const item = items[index];
      if (index >= items.length || item === undefined || failure !== undefined) break;
      let free = () => {};
      const freed = new Promise<void>((resolve) => {
        free = resolve;
      });
      const slot = { lane, turn, free: pool.isOverlapping ? free : () => {} };
      const done = Promise.resolve()
        .then(() => work(item, slot))
        .then(
          (result) => {
            results[index] = result;
          },
          (error: unknown) => {
            failure ??= { error };
          },
        )
        .finally(free);
      finishing[turn % 2] = done;
      await freed;
    }
    await Promise.all(finishing);
  };
  await Promise.all(
    Array.from({ length: Math.min(pool.limit, items.length) }, (_, lane) => worker(lane)),
  );
  if (failure !== undefined) throw failure.error;
  return results;
}
