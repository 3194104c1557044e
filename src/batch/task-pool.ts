/**
 * Runs `work` over `items` with at most `limit` at once, keeping the input order in the result.
 * After a failure no new item starts, but the running ones finish (and clean up their commands)
 * before it is thrown.
 */
export function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  let running = 0;
  let failure: { error: unknown } | undefined;
  return new Promise((resolve, reject) => {
    const startMore = () => {
      while (running < limit && next < items.length && failure === undefined) {
        const index = next++;
        running += 1;
        Promise.resolve()
          .then(() => work(items[index] as T))
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
            startMore();
          });
      }
      if (running > 0) return;
      if (failure !== undefined) reject(failure.error);
      else resolve(results);
    };
    startMore();
  });
}
