/**
 * The order a list of calls runs in, for the runtime's `batch` and the agent loop alike: consecutive
 * calls that may overlap (read-only ones) run together; any other call waits for what came before it
 * and runs alone. Results come back in request order.
 */
export async function runInGroups<C, R>(
  calls: readonly C[],
  overlaps: (c: C) => boolean,
  run: (c: C) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < calls.length; ) {
    let j = i + 1;
    if (overlaps(calls[i] as C)) while (j < calls.length && overlaps(calls[j] as C)) j++;
    results.push(...(await Promise.all(calls.slice(i, j).map(run))));
    i = j;
  }
  return results;
}
