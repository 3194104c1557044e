/**
 * Runs `work` over `items` with at most `limit` at once, keeping the input order in the result.
 * After a failure no new item starts, but the running ones finish (and clean up their commands)
 * before it is thrown.
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    for (let index = next++; index < items.length && failure === undefined; index = next++) {
      const item = items[index] as T;
      try {
        results[index] = await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}
