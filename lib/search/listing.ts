/**
 * The files a grep found in files_with_matches and count modes: written by each shard as it finds
 * them (`GrepShardResult.listed`: NUL-separated paths as bytes, and an array of counts), and merged on
 * the main thread. A whole-tree answer is ~100k files on the bench tree. Each shard's run is already in path order,
 * so the runs are merged as they are read, a path at a time: nothing per file outlives its turn —
 * no array of the paths, of their order, or of the printed lines — and a whole-tree answer leaves
 * the main thread almost no garbage to keep committed. The writer runs wherever a shard runs.
 */
import { comparePaths } from './compare_paths.ts';

/**
 * One shard's files with matches, in path order: their paths NUL-separated as UTF-8 bytes, and
 * their match counts (count mode). Bytes, not a string: they live outside the V8 heap on both
 * threads and a worker hands them over without a copy (lib/runtime/pool_worker.ts), so a whole-tree answer
 * arriving on the main thread is not young data that survives — which is what makes V8 grow the main
 * thread's young generation to its 32 MiB cap. A string only where a path is not well-formed UTF-16
 * (bytes could not carry a lone surrogate back exactly; walked names never hold one).
 */
export interface ShardListing {
  names: Uint8Array | string;
  counts?: number[];
}

const isWellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed(); // ES2024, in Node 20

/** Per thread: the buffer listings are written into, reused by the next shard while it is small. */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);
const SCRATCH_KEEP_BYTES = 1024 * 1024;

/**
 * Writes a shard's listing as its files are found: each path goes into bytes at once, so no string or
 * array per file lives to the end of the shard (in a worker those outlived its young generation and
 * stayed in its old space until a full collection). A shard runs synchronously, so one writer at a
 * time uses the thread's scratch buffer.
 */
export class ListingWriter {
  #at = 0;
  #files = 0;
  /** Set once a path is not well-formed: the paths as strings from then on. */
  #strings: string[] | undefined;
  readonly #counts: number[] | undefined;

  constructor(withCounts: boolean) {
    this.#counts = withCounts ? [] : undefined;
  }

  add(rel: string, count: number): void {
    this.#counts?.push(count);
    if (this.#strings === undefined && !isWellFormed(rel))
      this.#strings = this.#files === 0 ? [] : scratch.toString('utf8', 0, this.#at).split('\0');
    this.#files++;
    if (this.#strings) {
      this.#strings.push(rel);
      return;
    }
    const need = this.#at + 1 + Buffer.byteLength(rel, 'utf8');
    if (need > scratch.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(need, scratch.length * 2));
      scratch.copy(bigger, 0, 0, this.#at);
      scratch = bigger;
    }
    if (this.#files > 1) scratch[this.#at++] = 0;
    this.#at += scratch.write(rel, this.#at, 'utf8');
  }

  done(): ShardListing {
    let names: Uint8Array | string = '';
    if (this.#strings) names = this.#strings.join('\0');
    else if (this.#files > 0) {
      // Its own exact-size buffer (never the shared pool's), so it can be moved to another thread.
      names = Buffer.allocUnsafeSlow(this.#at);
      scratch.copy(names, 0, 0, this.#at);
    }
    if (scratch.length > SCRATCH_KEEP_BYTES) scratch = Buffer.allocUnsafeSlow(64 * 1024);
    return this.#counts ? { names, counts: this.#counts } : { names };
  }
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
