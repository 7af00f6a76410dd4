/**
 * Runs `work` over every item, at most `limit` at a time, and answers the results in the items'
 * order. A bound, not a burst: a node's queue and its agent take the probes a few at a time.
 */
export async function mapInParallel<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
