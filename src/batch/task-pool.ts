/**
 * Runs `work` over `items` with at most `limit` holding a place at once, keeping the input order
 * in the result. An item holds its place until it calls `release` or ends, whichever comes first:
 * a task that has only its own files left to write lets the next one start. After a failure no
 * new item starts, but the running ones finish (and clean up their commands) before it is thrown.
 */
export function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, release: () => void) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  let holding = 0;
  let running = 0;
  let failure: { error: unknown } | undefined;
  return new Promise((resolve, reject) => {
    const settle = () => {
      if (running > 0) return;
      if (failure !== undefined) reject(failure.error);
      else resolve(results);
    };
    const startMore = () => {
      while (holding < limit && next < items.length && failure === undefined) {
        const index = next++;
        let isHeld = true;
        const release = () => {
          if (!isHeld) return;
          isHeld = false;
          holding -= 1;
          startMore();
        };
        holding += 1;
        running += 1;
        Promise.resolve()
          .then(() => work(items[index] as T, release))
          .then(
            (result) => {
              results[index] = result;
            },
            (error: unknown) => {
              failure ??= { error };
            },
          )
          .finally(() => {
            running -= 1;
            release();
            settle();
          });
      }
      settle();
    };
    startMore();
  });
}
