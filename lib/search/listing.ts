/**
 * The files a grep found in files_with_matches and count modes, merged from its shards' listings
 * (`GrepShardResult.listed`: one NUL-separated string of paths and an array of counts per shard).
 * A whole-tree answer is ~100k files on the bench tree. Each shard's run is already in path order,
 * so the runs are merged as they are read, a path at a time: nothing per file outlives its turn —
 * no array of the paths, of their order, or of the printed lines — and a whole-tree answer leaves
 * the main thread almost no garbage to keep committed. Main thread.
 */
import { comparePaths } from './compare_paths.ts';

/**
 * One shard's files with matches, in path order: their paths NUL-separated as UTF-8 bytes, and
 * their match counts (count mode). Bytes, not a string: they live outside the V8 heap on both
 * threads and a worker hands them over without a copy (lib/pool/worker.ts), so a whole-tree answer
 * arriving on the main thread is not young data that survives — which is what makes V8 grow the main
 * thread's young generation to its 32 MiB cap. A string only where a path is not well-formed UTF-16
 * (bytes could not carry a lone surrogate back exactly; walked names never hold one).
 */
export interface ShardListing {
  names: Uint8Array | string;
  counts?: number[];
}

const isWellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed(); // ES2024, in Node 20

/** A shard's listing of `names` (and `counts`), written straight into its own buffer (no joined string). */
export function packListing(names: readonly string[], counts?: number[]): ShardListing {
  let bytes = Math.max(0, names.length - 1); // the NULs between paths
  for (const n of names) {
    if (!isWellFormed(n)) return { names: names.join('\0'), ...(counts ? { counts } : {}) };
    bytes += Buffer.byteLength(n, 'utf8');
  }
  // Its own ArrayBuffer (never the shared pool's), so it can be handed to another thread.
  const out = Buffer.allocUnsafeSlow(bytes);
  let at = 0;
  for (let i = 0; i < names.length; i++) {
    if (i > 0) out[at++] = 0;
    at += out.write(names[i] as string, at, 'utf8');
  }
  return { names: out, ...(counts ? { counts } : {}) };
}

/**
 * Gives back the listings' bytes now: their wrappers outlive the young generation while the answer is
 * printed, so V8 would free the bytes only at its next full collection, and a warm runtime would hold
 * each whole-tree answer into the next call. Moving a buffer away detaches it; the moved copy is
 * young garbage, freed at the next scavenge.
 */
export function releaseListings(listings: readonly (ShardListing | undefined)[]): void {
  for (const l of listings) {
    const buffer = l && typeof l.names !== 'string' ? l.names.buffer : undefined;
    if (!(buffer instanceof ArrayBuffer) || buffer.byteLength === 0) continue;
    try {
      structuredClone(buffer, { transfer: [buffer] });
    } catch {
      // not detachable: left to the collector
    }
  }
}

/** One shard's listing being read: its current path and where the next one starts. */
interface Run {
  names: Buffer | string;
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
  r.rel = typeof r.names === 'string' ? r.names.slice(r.next, stop) : r.names.toString('utf8', r.next, stop);
  r.next = stop + 1;
  r.i++;
  return true;
}

/**
 * Calls `visit` with each listed file and its match count (1 in files_with_matches mode) in path
 * order, until it returns false. The runs sit in a binary heap on their current paths.
 */
export function eachListed(
  listings: readonly (ShardListing | undefined)[],
  visit: (rel: string, count: number) => boolean,
): void {
  const heap: Run[] = [];
  for (const l of listings) {
    if (!l || l.names.length === 0) continue;
    // A worker's bytes arrive as a plain Uint8Array: viewed as a Buffer, not copied.
    const names =
      typeof l.names === 'string' ? l.names : Buffer.from(l.names.buffer, l.names.byteOffset, l.names.length);
    const run: Run = { names, counts: l.counts, i: -1, next: 0, rel: '' };
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
