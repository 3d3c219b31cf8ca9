/**
 * Building a segment (layout: segment.ts) in a worker: files' distinct trigrams are added in file
 * order as (key, file) pairs — or, for the keys `dense` holds, as bits of per-key bitmaps — then
 * encoded: the pairs radix-sorted by key (stable, so each key's files stay ascending) and merged
 * with the bitmaps into one key table.
 */
import { mappedU8, mappedU32 } from '../../core/mapped.ts';
import { type DenseKeys, MAX_DENSE_KEYS } from './dense.ts';
import { drainTrigramBits, trigramsInto, trigramsSorted } from './ngrams.ts';
import { IN_CAP } from './ngrams_wasm.ts';
import type { ScratchSet } from './shared_scratch.ts';

/** The top bit of a key's count: its postings are a bitmap of the segment's files. */
export const BITMAP = 0x80000000;

/** Grows a pair list of (key, file) as two parallel u32 arrays; reused segment after segment. */
export class PairBuffer {
  keys: Uint32Array;
  files: Uint32Array;
  length = 0;
  /** Pairs added, the dense keys' included: what a segment's size is measured in. */
  counted = 0;
  /** Keys kept as bitmaps instead of pairs (none unless set: the encoding is the same either way). */
  dense: DenseKeys | undefined;

  constructor(capacity: number) {
    this.keys = mappedU32(capacity);
    this.files = mappedU32(capacity);
  }

  /** Forgets the pairs (after encodeSegment, which leaves the dense bitmaps clear). */
  clear(): void {
    this.length = 0;
    this.counted = 0;
  }

  add(keys: readonly number[], file: number): void {
    this.#reserve(keys.length);
    const ks = this.keys;
    let at = this.length;
    for (let i = 0; i < keys.length; i++) ks[at++] = keys[i] as number;
    this.#added(at, file);
  }

  /** Adds the pairs of every distinct trigram of `bytes` with `file`. */
  addFile(bytes: Uint8Array, file: number): void {
    const bound = Math.max(0, bytes.length - 2);
    const dense = this.dense;
    // The common case: the module finds the keys and takes the dense ones out in one call.
    if (dense && bytes.length <= IN_CAP && this.length + bound <= this.keys.length) {
      const { end, total } = dense.into(bytes, this.keys, this.length, file);
      this.counted += total;
      this.files.fill(file, this.length, end);
      this.length = end;
      return;
    }
    // Room for every position is the common case; a file that does not fit is counted first
    // (in the same pass that finds its keys), and the buffer grows by what it needs.
    const end =
      this.length + bound <= this.keys.length
        ? trigramsInto(bytes, this.keys, this.length)
        : trigramsSorted(bytes, (count) => {
            this.#reserve(count);
            return { out: this.keys, at: this.length };
          });
    this.#added(end, file);
  }

  /** Adds the pairs of the keys set by setTrigramBits (a large file read in pieces) with `file`. */
  addBits(file: number): void {
    const end = drainTrigramBits((count) => {
      this.#reserve(count);
      return { out: this.keys, at: this.length };
    });
    this.#added(end, file);
  }

  /** `file`'s keys were written at [length, end): the dense ones go to their bitmaps. */
  #added(end: number, file: number): void {
    this.counted += end - this.length;
    const kept = this.dense ? this.dense.take(this.keys, this.length, end, file) : end;
    this.files.fill(file, this.length, kept);
    this.length = kept;
  }

  #reserve(more: number): void {
    const need = this.length + more;
    if (need <= this.keys.length) return;
    // Exactly what is needed: a large file is rare, and the builder drops a grown buffer after flushing.
    const k = mappedU32(need);
    k.set(this.keys.subarray(0, this.length));
    const f = mappedU32(need);
    f.set(this.files.subarray(0, this.length));
    this.keys = k;
    this.files = f;
  }
}

/**
 * Pairs per segment (build_shard.ts starts a new segment at this many): bounds a worker's memory
 * while building (~8 bytes a pair, twice; the sort's scratch 13 more, all WebAssembly memory
 * released when the piece ends). Every segment has a key table of its own, which a serving runtime
 * holds and a query looks its keys up in: on a 104k-file tree of real code 512k made 369 segments of
 * 9.4M keys (a 178 MB index), 4M makes 28 of 2.9M (109 MB), for a one-shot build's peak of 234 MB
 * against 186 and a warm runtime's serving peak ~45 MB lower. 3M against 4M, with the sort's scratch
 * shared by the workers (shared_scratch.ts), building alone on 2 workers (three runs each): peak RSS
 * 239–241 against 257–261 MiB, build time level (3.2–3.3 s), an index of 110 MB against 105, a
 * runtime serving from it level (164–166 against 162–163).
 */
export const PAIRS_PER_SEGMENT = 3072 * 1024;
/** Room of the pair buffer: a segment's pairs plus a file that starts one. */
export const PAIR_CAPACITY = PAIRS_PER_SEGMENT + (1 << 16);

// Scratch arrays of the radix sort and the postings, kept between segments (one set per thread) up
// to a segment's pairs (PAIR_CAPACITY); a larger segment (a large file's) gets scratch of its own,
// dropped after it.
let kept: Scratch = { keys: new Uint32Array(0), files: new Uint32Array(0), post: new Uint8Array(0) };
const POP8 = Uint8Array.from({ length: 256 }, (_, x) => {
  let c = 0;
  for (let v = x; v; v &= v - 1) c++;
  return c;
});

/**
 * Encodes the pairs (added in ascending file order) and the dense bitmaps as a segment of `nFiles`
 * files, byte for byte what the same keys all given as pairs would encode to; clears the bitmaps
 * and sets the next segment's dense keys (those this segment stores as bitmaps).
 */
export function encodeSegment(p: PairBuffer, nFiles: number): Uint8Array {
  return encodeSegmentView(p, nFiles).slice();
}

// The encoded segment's bytes, kept between segments (one per thread) as the scratch is.
let encoded: Uint8Array = new Uint8Array(0);

/**
 * encodeSegment's bytes in this thread's scratch, or in `shared` (a build's, shared_scratch.ts) where
 * it is large enough: valid until the next encoding in that scratch.
 */
export function encodeSegmentView(p: PairBuffer, nFiles: number, shared?: ScratchSet): Uint8Array {
  const bitmapBytes = (nFiles + 7) >>> 3;
  const dense = p.dense;
  const counts = countDense(dense, bitmapBytes);
  const scratch = scratchFor(p.length, counts.room, shared);
  sortPairs(p, scratch);
  const { head, at, next, nNext } = keyTable(p, nFiles, counts, scratch.post, shared);
  if (dense) {
    for (let r = 0; r < counts.n; r++) counts.rows.fill(0, r * counts.rowBytes, r * counts.rowBytes + bitmapBytes);
    // Room for half as many files again as this segment held.
    dense.reset(next, nNext, nFiles + (nFiles >>> 1));
  }
  const length = head.byteLength + ((at + 3) & ~3);
  let out = shared && shared.encoded.length >= length ? shared.encoded : encoded;
  if (out.length < length) {
    out = mappedU8(length);
    if (length <= 5 * PAIR_CAPACITY) encoded = out;
  }
  out.set(new Uint8Array(head.buffer, head.byteOffset, head.byteLength), 0);
  out.set(scratch.post.subarray(0, at), head.byteLength);
  out.fill(0, head.byteLength + at, length); // the padding, as a fresh array would hold it
  return out.subarray(0, length);
}

/** The dense keys' bitmap rows, with how many of this segment's files each holds. */
interface DenseCounts {
  n: number;
  rows: Uint8Array;
  rowBytes: number;
  /** Files per dense key. */
  count: Uint32Array;
  /** Dense keys with at least one file: each takes a row of the key table. */
  keys: number;
  /** The most postings bytes the dense keys can take (varints or bitmaps). */
  room: number;
}

function countDense(dense: DenseKeys | undefined, bitmapBytes: number): DenseCounts {
  const dn = dense?.n ?? 0;
  const rows = dense?.rows ?? new Uint8Array(0);
  const rowBytes = dense?.rowBytes ?? 0;
  const count = new Uint32Array(dn);
  let keys = 0;
  let room = 0;
  for (let s = 0; s < dn; s++) {
    let c = 0;
    for (let b = s * rowBytes, end = b + bitmapBytes; b < end; b++) c += POP8[rows[b] as number] as number;
    count[s] = c;
    if (c > 0) keys++;
    room += c >= bitmapBytes ? bitmapBytes : 5 * c;
  }
  return { n: dn, rows, rowBytes, count, keys, room };
}

/** The radix sort's second copy and the postings (over private or shared memory). */
type Scratch = { keys: Uint32Array; files: Uint32Array; post: Uint8Array };

/** Drops the scratch this thread kept (at the end of a build's piece): the next segment makes its own. */
export function releaseScratch(): void {
  kept = { keys: new Uint32Array(0), files: new Uint32Array(0), post: new Uint8Array(0) };
  encoded = new Uint8Array(0);
  heads = new Uint32Array(0);
}

let heads: Uint32Array = new Uint32Array(0);

/** `n` zeroed words for a key table, in `shared` or this thread's kept scratch (a large one of its own). */
function headScratch(n: number, shared: ScratchSet | undefined): Uint32Array {
  if (shared && shared.heads.length >= n) return shared.heads.subarray(0, n).fill(0);
  if (heads.length >= n) return heads.subarray(0, n).fill(0);
  const made = mappedU32(n);
  if (n <= 3 * PAIR_CAPACITY) heads = made;
  return made;
}

/**
 * Scratch for `n` pairs: the shared set or else the kept one when it is large enough, else a new
 * one, kept unless too large.
 */
function scratchFor(n: number, denseRoom: number, shared: ScratchSet | undefined): Scratch {
  const fits = (x: Scratch) => x.keys.length >= n && x.post.length >= n * 5 + 16 + denseRoom;
  if (shared && fits(shared)) return shared;
  let scratch = kept;
  if (!fits(scratch)) {
    const room = Math.max(n, scratch.keys.length);
    scratch = {
      keys: mappedU32(room),
      files: mappedU32(room),
      post: mappedU8(room * 5 + 16 + denseRoom),
    };
    if (n <= PAIR_CAPACITY) kept = scratch;
  }
  return scratch;
}

/** Sorts the pairs by key, 12 bits a pass, into the scratch and back: stable, so each key's files stay ascending. */
function sortPairs(p: PairBuffer, scratch: Scratch): void {
  const n = p.length;
  const count = new Uint32Array(4097);
  radixPass(p.keys, p.files, scratch.keys, scratch.files, n, 0, count);
  count.fill(0);
  radixPass(scratch.keys, scratch.files, p.keys, p.files, n, 12, count);
}

/**
 * Merges the sorted pairs' keys and the dense keys, ascending, into the key table (`head`: the keys,
 * their counts, their postings' ends) and their postings (`post`, up to `at`); `next` holds the keys
 * with a bitmap's worth of files or more, the next segment's dense keys.
 */
function keyTable(
  p: PairBuffer,
  nFiles: number,
  d: DenseCounts,
  post: Uint8Array,
  shared: ScratchSet | undefined,
): { head: Uint32Array; at: number; next: Uint32Array; nNext: number } {
  const { keys, files, length: n, dense } = p;
  const { n: dn, rows, rowBytes, count: denseCount } = d;
  const bitmapBytes = (nFiles + 7) >>> 3;
  let nKeys = d.keys;
  for (let i = 0; i < n; i++) if (i === 0 || keys[i] !== keys[i - 1]) nKeys++;
  const head = headScratch(2 + 3 * nKeys, shared);
  head[0] = nKeys;
  head[1] = nFiles;
  const next = new Uint32Array(Math.min(nKeys, MAX_DENSE_KEYS));
  let nNext = 0;
  let at = 0;
  let slot = 0;
  let s = 0;
  for (let i = 0; i < n || s < dn; slot++) {
    if (s < dn && denseCount[s] === 0) {
      s++;
      slot--;
      continue;
    }
    const fromDense = s < dn && (i >= n || (dense?.keys[s] as number) < (keys[i] as number));
    const from = at;
    let key: number;
    let many: number;
    let j = i;
    if (fromDense) {
      key = dense?.keys[s] as number;
      many = denseCount[s] as number;
      // Each file takes a byte or more as a varint: at a bitmap's size or more, go straight to the bitmap.
      if (many >= bitmapBytes) at += bitmapBytes + 1;
      else at = varintsOfRow(rows, s * rowBytes, bitmapBytes, post, at);
    } else {
      key = keys[i] as number;
      while (j < n && keys[j] === key) j++;
      many = j - i;
      if (many >= bitmapBytes) at += bitmapBytes + 1;
      else at = varintsOfPairs(files, i, j, post, at);
    }
    let counted = many;
    // A dense list is smaller as a bitmap of the segment's files (flagged in the count's top bit).
    if (at - from > bitmapBytes) {
      if (fromDense) post.set(rows.subarray(s * rowBytes, s * rowBytes + bitmapBytes), from);
      else bitmapOfPairs(files, i, j, post, from, bitmapBytes);
      at = from + bitmapBytes;
      counted = (counted | BITMAP) >>> 0;
    }
    if (many >= bitmapBytes && nNext < next.length) next[nNext++] = key;
    head[2 + slot] = key;
    head[2 + nKeys + slot] = counted;
    head[2 + 2 * nKeys + slot] = at;
    if (fromDense) s++;
    else i = j;
  }
  return { head, at, next, nNext };
}

/** Writes the files of pairs [i, j) as a bitmap of the segment's files at `from`. */
function bitmapOfPairs(files: Uint32Array, i: number, j: number, post: Uint8Array, from: number, bytes: number): void {
  post.fill(0, from, from + bytes);
  for (let x = i; x < j; x++) {
    const f = files[x] as number;
    post[from + (f >>> 3)] = (post[from + (f >>> 3)] as number) | (1 << (f & 7));
  }
}

/** Writes `d` as a varint (7 bits a byte, low first) at `at`; returns the end. */
function putVarint(post: Uint8Array, at: number, d: number): number {
  while (d >= 0x80) {
    post[at++] = (d & 0x7f) | 0x80;
    d >>>= 7;
  }
  post[at++] = d;
  return at;
}

function varintsOfPairs(files: Uint32Array, i: number, j: number, post: Uint8Array, at: number): number {
  let prev = -1;
  for (let x = i; x < j; x++) {
    const file = files[x] as number;
    at = putVarint(post, at, file - prev);
    prev = file;
  }
  return at;
}

/** The varint deltas of the files set in a bitmap row (ascending), as varintsOfPairs writes them. */
function varintsOfRow(rows: Uint8Array, row: number, bytes: number, post: Uint8Array, at: number): number {
  let prev = -1;
  for (let b = 0; b < bytes; b++) {
    let bits = rows[row + b] as number;
    while (bits !== 0) {
      const low = bits & -bits;
      const file = b * 8 + (31 - Math.clz32(low));
      bits ^= low;
      at = putVarint(post, at, file - prev);
      prev = file;
    }
  }
  return at;
}

/** One stable counting-sort pass on 12 bits of the key, from (k, f) into (k2, f2). */
function radixPass(
  k: Uint32Array,
  f: Uint32Array,
  k2: Uint32Array,
  f2: Uint32Array,
  n: number,
  shift: number,
  count: Uint32Array,
): void {
  for (let i = 0; i < n; i++) {
    const b = (((k[i] as number) >>> shift) & 4095) + 1;
    count[b] = (count[b] as number) + 1;
  }
  for (let b = 0; b < 4096; b++) count[b + 1] = (count[b + 1] as number) + (count[b] as number);
  for (let i = 0; i < n; i++) {
    const key = k[i] as number;
    const b = (key >>> shift) & 4095;
    const at = count[b] as number;
    count[b] = at + 1;
    k2[at] = key;
    f2[at] = f[i] as number;
  }
}
