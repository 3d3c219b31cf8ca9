/**
 * The files a grep found in files_with_matches and count modes, merged from its shards' listings
 * (`GrepShardResult.listed`: one NUL-separated string of paths and an array of counts per shard).
 * A whole-tree answer is ~100k files on the bench tree. Each shard's run is already in path order,
 * so the runs are merged as they are read, a path at a time: nothing per file outlives its turn —
 * no array of the paths, of their order, or of the printed lines — and a whole-tree answer leaves
 * the main thread almost no garbage to keep committed. Main thread.
 */
import type { GrepShardResult } from './shards.ts';
import { comparePaths } from './walk.ts';

/** One shard's listing being read: its current path and where the next one starts. */
interface Run {
  names: string;
  counts: readonly number[] | undefined;
  /** Index of the current path (for its count). */
  i: number;
  /** Where the next path starts in `names`; past its end when the run is spent. */
  next: number;
  rel: string;
}

/** Moves a run to its next path; false when it has none left. */
function advance(r: Run): boolean {
  if (r.next > r.names.length) return false;
  const end = r.names.indexOf('\0', r.next);
  const stop = end < 0 ? r.names.length : end;
  r.rel = r.names.slice(r.next, stop);
  r.next = stop + 1;
  r.i++;
  return true;
}

/**
 * Calls `visit` with each listed file and its match count (1 in files_with_matches mode) in path
 * order, until it returns false. The runs sit in a binary heap on their current paths.
 */
export function eachListed(
  results: readonly Pick<GrepShardResult, 'listed'>[],
  visit: (rel: string, count: number) => boolean,
): void {
  const heap: Run[] = [];
  for (const r of results) {
    if (!r.listed || r.listed.names === '') continue;
    const run: Run = { names: r.listed.names, counts: r.listed.counts, i: -1, next: 0, rel: '' };
    advance(run);
    heap.push(run);
  }
  for (let k = (heap.length >> 1) - 1; k >= 0; k--) siftDown(heap, k);
  while (heap.length > 0) {
    const top = heap[0] as Run;
    if (!visit(top.rel, top.counts?.[top.i] ?? 1)) return;
    if (!advance(top)) {
      const last = heap.pop() as Run;
      if (heap.length === 0) return;
      heap[0] = last;
    }
    siftDown(heap, 0);
  }
}

function siftDown(heap: Run[], from: number): void {
  const n = heap.length;
  let k = from;
  const item = heap[k] as Run;
  for (;;) {
    let child = 2 * k + 1;
    if (child >= n) break;
    const right = child + 1;
    if (right < n && comparePaths((heap[right] as Run).rel, (heap[child] as Run).rel) < 0) child = right;
    if (comparePaths((heap[child] as Run).rel, item.rel) >= 0) break;
    heap[k] = heap[child] as Run;
    k = child;
  }
  heap[k] = item;
}
