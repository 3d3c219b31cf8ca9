/**
 * A segment: the posting lists of a run of files, as one byte array. Layout (little-endian u32s,
 * so it can be viewed in place when 4-aligned): nKeys, nFiles, keys[nKeys] (sorted trigram keys),
 * counts[nKeys] (files per key; top bit: a bitmap), ends[nKeys] (end offset of each key's postings),
 * then the postings: each key's file numbers (local to the segment, ascending) as varint deltas, or
 * as a bitmap of the segment's files when that is smaller (a common trigram). Built in workers from
 * (key, file) pairs; read on the main thread.
 */
import { drainTrigramBits, trigramsInto, trigramsSorted } from './ngrams.ts';

/** Grows a pair list of (key, file) as two parallel u32 arrays; reused segment after segment. */
export class PairBuffer {
  keys: Uint32Array;
  files: Uint32Array;
  length = 0;

  constructor(capacity: number) {
    this.keys = new Uint32Array(capacity);
    this.files = new Uint32Array(capacity);
  }

  add(keys: readonly number[], file: number): void {
    this.#reserve(keys.length);
    const ks = this.keys;
    const fs = this.files;
    let at = this.length;
    for (let i = 0; i < keys.length; i++) {
      ks[at] = keys[i] as number;
      fs[at++] = file;
    }
    this.length = at;
  }

  /** Adds the pairs of every distinct trigram of `bytes` with `file`. */
  addFile(bytes: Uint8Array, file: number): void {
    const bound = Math.max(0, bytes.length - 2);
    // Room for every position is the common case; a file that does not fit is counted first
    // (in the same pass that finds its keys), and the buffer grows by what it needs.
    const end =
      this.length + bound <= this.keys.length
        ? trigramsInto(bytes, this.keys, this.length)
        : trigramsSorted(bytes, (count) => {
            this.#reserve(count);
            return { out: this.keys, at: this.length };
          });
    this.files.fill(file, this.length, end);
    this.length = end;
  }

  /** Adds the pairs of the keys set by setTrigramBits (a large file read in pieces) with `file`. */
  addBits(file: number): void {
    const end = drainTrigramBits((count) => {
      this.#reserve(count);
      return { out: this.keys, at: this.length };
    });
    this.files.fill(file, this.length, end);
    this.length = end;
  }

  #reserve(more: number): void {
    const need = this.length + more;
    if (need <= this.keys.length) return;
    // Exactly what is needed: a large file is rare, and the builder drops a grown buffer after flushing.
    const k = new Uint32Array(need);
    k.set(this.keys.subarray(0, this.length));
    const f = new Uint32Array(need);
    f.set(this.files.subarray(0, this.length));
    this.keys = k;
    this.files = f;
  }
}

// Scratch arrays of the radix sort and the postings, kept between segments (one set per thread) up
// to this many pairs; a larger segment (a large file's) gets scratch of its own, dropped after it.
const KEEP_SCRATCH_PAIRS = 1 << 20;
let kept = { keys: new Uint32Array(0), files: new Uint32Array(0), post: new Uint8Array(0) };

/**
 * Encodes the pairs (added in ascending file order) as a segment of `nFiles` files: a stable
 * two-pass radix sort on the 24-bit key keeps each key's files ascending.
 */
export function encodeSegment(p: PairBuffer, nFiles: number): Uint8Array {
  const n = p.length;
  let scratch = kept;
  if (scratch.keys.length < n) {
    scratch = { keys: new Uint32Array(n), files: new Uint32Array(n), post: new Uint8Array(n * 5 + 16) };
    if (n <= KEEP_SCRATCH_PAIRS) kept = scratch;
  }
  const count = new Uint32Array(4097);
  radixPass(p.keys, p.files, scratch.keys, scratch.files, n, 0, count);
  count.fill(0);
  radixPass(scratch.keys, scratch.files, p.keys, p.files, n, 12, count);
  const keys = p.keys;
  const files = p.files;
  let nKeys = 0;
  for (let i = 0; i < n; i++) if (i === 0 || keys[i] !== keys[i - 1]) nKeys++;
  const bitmapBytes = (nFiles + 7) >>> 3;
  const post = scratch.post;
  const head = new Uint32Array(2 + 3 * nKeys);
  head[0] = nKeys;
  head[1] = nFiles;
  let at = 0;
  let slot = 0;
  for (let i = 0; i < n; slot++) {
    const key = keys[i] as number;
    let j = i;
    while (j < n && keys[j] === key) j++;
    const from = at;
    let prev = -1;
    // Each file takes a byte or more as a varint: at a bitmap's size or more, go straight to the bitmap.
    if (j - i >= bitmapBytes) at += bitmapBytes + 1;
    else
      for (let x = i; x < j; x++) {
        const file = files[x] as number;
        let d = file - prev;
        prev = file;
        while (d >= 0x80) {
          post[at++] = (d & 0x7f) | 0x80;
          d >>>= 7;
        }
        post[at++] = d;
      }
    let count = j - i;
    // A dense list is smaller as a bitmap of the segment's files (flagged in the count's top bit).
    if (at - from > bitmapBytes) {
      at = from;
      post.fill(0, from, from + bitmapBytes);
      for (let x = i; x < j; x++) {
        const f = files[x] as number;
        post[from + (f >>> 3)] = (post[from + (f >>> 3)] as number) | (1 << (f & 7));
      }
      at = from + bitmapBytes;
      count = (count | BITMAP) >>> 0;
    }
    head[2 + slot] = key;
    head[2 + nKeys + slot] = count;
    head[2 + 2 * nKeys + slot] = at;
    i = j;
  }
  const out = new Uint8Array(head.byteLength + ((at + 3) & ~3));
  out.set(new Uint8Array(head.buffer), 0);
  out.set(post.subarray(0, at), head.byteLength);
  return out;
}

const BITMAP = 0x80000000;
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

/** Reads bytes [from, to) of a segment's postings (from the index file, when they are not in memory). */
export type PostingsReader = (from: number, to: number) => Uint8Array;

/**
 * A segment read back: its key table viewed in place, its postings decoded on demand — from memory,
 * or read from the index file a key at a time (`read`), so a serving runtime holds only key tables.
 */
export class Segment {
  readonly nKeys: number;
  readonly keys: Uint32Array;
  readonly counts: Uint32Array;
  readonly ends: Uint32Array;
  readonly #read: PostingsReader;
  /** Global number of the segment's first file. */
  readonly base: number;

  /** `bytes`: the whole segment, or only its key table when `read` gives the postings. */
  constructor(bytes: Uint8Array, base: number, read?: PostingsReader) {
    this.base = base;
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
    const nKeys = new Uint32Array(aligned.buffer, aligned.byteOffset, 1)[0] as number;
    const u32 = new Uint32Array(aligned.buffer, aligned.byteOffset, 2 + 3 * nKeys);
    this.nKeys = nKeys;
    this.keys = u32.subarray(2, 2 + nKeys);
    this.counts = u32.subarray(2 + nKeys, 2 + 2 * nKeys);
    this.ends = u32.subarray(2 + 2 * nKeys, 2 + 3 * nKeys);
    const postings = aligned.subarray(4 * (2 + 3 * nKeys));
    this.#read = read ?? ((from, to) => postings.subarray(from, to));
  }

  /** Bytes of the key table: what a segment whose postings stay on disk holds in memory. */
  static headBytes(nKeys: number): number {
    return 4 * (2 + 3 * nKeys);
  }

  /** Slot of `key`, or -1. */
  find(key: number): number {
    let lo = 0;
    let hi = this.nKeys - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const k = this.keys[mid] as number;
      if (k === key) return mid;
      if (k < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  count(key: number): number {
    const s = this.find(key);
    return s < 0 ? 0 : ((this.counts[s] as number) & ~BITMAP) >>> 0;
  }

  /** Calls `each` with the global number of every file holding `key`. */
  forEach(key: number, each: (file: number) => void): void {
    const s = this.find(key);
    if (s < 0) return;
    const p = this.#read(s === 0 ? 0 : (this.ends[s - 1] as number), this.ends[s] as number);
    const end = p.length;
    let at = 0;
    if ((this.counts[s] as number) & BITMAP) {
      for (let byte = 0; at < end; at++, byte += 8) {
        const bits = p[at] as number;
        if (bits === 0) continue;
        for (let b = 0; b < 8; b++) if (bits & (1 << b)) each(this.base + byte + b);
      }
      return;
    }
    let file = this.base - 1;
    while (at < end) {
      let d = 0;
      let shift = 0;
      let b: number;
      do {
        b = p[at++] as number;
        d |= (b & 0x7f) << shift;
        shift += 7;
      } while (b & 0x80);
      file += d;
      each(file);
    }
  }
}
