/**
 * One set of segment-encoding scratch for a whole index build, shared by its pieces' workers and
 * taken in turns. Encoding a segment of 4M pairs took ~80 MB of scratch (the radix sort's second
 * copy, the postings, the key table, the encoded bytes: segment_build.ts); each worker kept its own
 * from segment to segment, and two workers building at once held two, which made the build's peak
 * (~270 MiB of RSS on a 104k-file tree, 2 workers). Shared memory (SharedArrayBuffer) crosses to each
 * worker with its piece, uncopied; a worker encodes in it while it holds the turn, a lock on the
 * same memory. One that waits too long for the turn (the holder's worker was ended mid-segment)
 * gives the shared scratch up for the rest of the build, and every piece then encodes in scratch of
 * its own, as before: the turn saves memory and is never needed for a right answer. Pieces run
 * inline (no pool) hold no turn: one thread, one scratch anyway.
 */

/** The arrays segment_build.ts encodes in, each over shared memory. */
export interface ScratchSet {
  keys: Uint32Array;
  files: Uint32Array;
  post: Uint8Array;
  heads: Uint32Array;
  encoded: Uint8Array;
}

/** What a build hands each piece: the scratch's memory and its turn (an Int32Array's word: 1 taken). */
export interface SharedScratch {
  turn: SharedArrayBuffer;
  keys: SharedArrayBuffer;
  files: SharedArrayBuffer;
  post: SharedArrayBuffer;
  heads: SharedArrayBuffer;
  encoded: SharedArrayBuffer;
}

/**
 * Longest a piece waits for the turn before it encodes in scratch of its own: far above a segment's
 * encoding (~0.1–0.3 s on two loaded cores), so it is reached only when the holder is gone.
 */
export const TURN_WAIT_MS = 10_000;

/** Scratch for segments of up to `pairs` pairs (larger ones get their own, as before). */
export function createSharedScratch(pairs: number): SharedScratch {
  return {
    turn: new SharedArrayBuffer(4),
    keys: new SharedArrayBuffer(4 * pairs),
    files: new SharedArrayBuffer(4 * pairs),
    // Each pair's file as a varint of up to 5 bytes, and room for the dense keys' bitmaps.
    post: new SharedArrayBuffer(6 * pairs),
    // A key table: three words a key, at most one key a pair.
    heads: new SharedArrayBuffer(4 * (3 * pairs + 2)),
    encoded: new SharedArrayBuffer(5 * pairs),
  };
}

const viewsOf = (s: SharedScratch): ScratchSet => ({
  keys: new Uint32Array(s.keys),
  files: new Uint32Array(s.files),
  post: new Uint8Array(s.post),
  heads: new Uint32Array(s.heads),
  encoded: new Uint8Array(s.encoded),
});

/** The turn's word: free, taken, or given up on (a wait timed out: its holder is taken to be gone). */
const FREE = 0;
const TAKEN = 1;
const ABANDONED = 2;

/**
 * Runs `work` with the shared scratch while holding its turn, or with none (`work(undefined)`: the
 * thread's own scratch) when there is no shared scratch or the turn did not come within `waitMs`.
 */
export function withScratchTurn<T>(
  shared: SharedScratch | undefined,
  work: (scratch: ScratchSet | undefined) => T,
  waitMs = TURN_WAIT_MS,
): T {
  if (!shared) return work(undefined);
  const word = new Int32Array(shared.turn);
  if (!takeTurn(word, waitMs)) return work(undefined);
  try {
    return work(viewsOf(shared));
  } finally {
    // Given up on meanwhile: it stays so (no one else encodes in it once given up on).
    Atomics.compareExchange(word, 0, TAKEN, FREE);
    Atomics.notify(word, 0, 1);
  }
}

/**
 * Takes the turn, waiting up to `waitMs`. A wait that times out gives the shared scratch up for the
 * rest of the build, so the pieces after it do not wait out the same dead holder one by one (each
 * segment 10 s: a failing build reported its failure two minutes late).
 */
function takeTurn(word: Int32Array, waitMs: number): boolean {
  const until = Date.now() + waitMs;
  for (;;) {
    const was = Atomics.compareExchange(word, 0, FREE, TAKEN);
    if (was === FREE) return true;
    if (was === ABANDONED) return false;
    const left = until - Date.now();
    if (left <= 0) {
      Atomics.compareExchange(word, 0, TAKEN, ABANDONED);
      Atomics.notify(word, 0);
      return false;
    }
    Atomics.wait(word, 0, TAKEN, left);
  }
}
