/**
 * A segment: the posting lists of a run of files, as one byte array. Layout (little-endian u32s,
 * so it can be viewed in place when 4-aligned): nKeys, nFiles, keys[nKeys] (sorted trigram keys),
 * counts[nKeys] (files per key; top bit: a bitmap), ends[nKeys] (end offset of each key's postings),
 * then the postings: each key's file numbers (local to the segment, ascending) as varint deltas, or
 * as a bitmap of the segment's files when that is smaller (a common trigram). Built in workers from
 * (key, file) pairs; read on the main thread.
 */
import { BITMAP } from './segment_build.ts';

export { encodeSegment, PairBuffer } from './segment_build.ts';

/** Most bytes one read ahead takes: what lies between the keys is read too. */
const MAX_AHEAD_BYTES = 64 * 1024;

/** Postings read in one read for one lookup (`Segment.readAhead`): bytes [from, from + bytes.length). */
export interface ReadAhead {
  readonly from: number;
  readonly bytes: Uint8Array;
}

/** Reads bytes [from, to) of a segment's postings (from the index file, when they are not in memory). */
type PostingsReader = (from: number, to: number) => Uint8Array;

/**
 * A segment read back: its key table viewed in place, its postings decoded on demand — from memory,
 * or read from the index file a key at a time (`read`), so a serving runtime holds only key tables.
 */
export class Segment {
  readonly nKeys: number;
  /** Files of the segment: `base` … `base + nFiles - 1`. */
  readonly nFiles: number;
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
    this.nFiles = u32[1] as number;
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

  /**
   * Reads the postings of all of `keys` this segment holds in one read, when they lie within
   * MAX_AHEAD_BYTES of each other, for the `forEach` calls given it: a lookup of many alternatives
   * (a digit class's ten triples) costs one system call per segment, not one per key.
   */
  readAhead(keys: readonly number[]): ReadAhead | undefined {
    let lo = Number.POSITIVE_INFINITY;
    let hi = -1;
    for (const k of keys) {
      const s = this.find(k);
      if (s < 0) continue;
      const [from, to] = this.#range(s);
      lo = Math.min(lo, from);
      hi = Math.max(hi, to);
    }
    return hi > lo && hi - lo <= MAX_AHEAD_BYTES ? { from: lo, bytes: this.#read(lo, hi) } : undefined;
  }

  /** Byte range of slot `s`'s postings. */
  #range(s: number): [number, number] {
    return [s === 0 ? 0 : (this.ends[s - 1] as number), this.ends[s] as number];
  }

  #postings(s: number, ahead: ReadAhead | undefined): Uint8Array {
    const [from, to] = this.#range(s);
    if (ahead && from >= ahead.from && to <= ahead.from + ahead.bytes.length)
      return ahead.bytes.subarray(from - ahead.from, to - ahead.from);
    return this.#read(from, to);
  }

  count(key: number): number {
    const s = this.find(key);
    return s < 0 ? 0 : ((this.counts[s] as number) & ~BITMAP) >>> 0;
  }

  /** Calls `each` with the global number of every file holding `key`; `ahead`: bytes read by `readAhead`. */
  forEach(key: number, each: (file: number) => void, ahead?: ReadAhead): void {
    const s = this.find(key);
    if (s < 0) return;
    const p = this.#postings(s, ahead);
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
