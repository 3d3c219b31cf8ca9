/**
 * A segment: the posting lists of a run of files, as one byte array. Layout (little-endian u32s,
 * so it can be viewed in place when 4-aligned): nKeys, nFiles, keys[nKeys] (sorted trigram keys),
 * counts[nKeys] (files per key; top bit: a bitmap), ends[nKeys] (end offset of each key's postings),
 * then the postings: each key's file numbers (local to the segment, ascending) as varint deltas, or
 * as a bitmap of the segment's files when that is smaller (a common trigram). Built in workers from
 * (key, file) pairs; read on the main thread.
 */
import { DiskKeys } from './disk_keys.ts';
import { KeyIndex } from './key_index.ts';
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
/** Reads bytes [from, to) of a segment from its start: its key table's counts and ends, left on disk. */
type HeadReader = (from: number, to: number) => Uint8Array;
/** A slot's count word (top bit: a bitmap) and the byte range of its postings. */
type SlotInfo = readonly [count: number, from: number, to: number];

/** Slots whose count and range a segment on disk remembers: a query asks for each of its keys twice. */
const REMEMBERED_SLOTS = 64;

const u32At = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(at, true);

/**
 * A segment read back: its keys held compactly (key_index.ts), its postings decoded on demand — from
 * memory, or read from the index file a key at a time (`read`). A serving runtime holds none of its
 * key table: each key is looked up in a block read from the file (disk_keys.ts), and a found key's
 * count and range are read too (`readHead`), two small reads.
 */
export class Segment {
  readonly nKeys: number;
  /** Files of the segment: `base` … `base + nFiles - 1`. */
  readonly nFiles: number;
  readonly #keys: KeyIndex | DiskKeys;
  /** In memory when the bytes given hold the whole key table; else read through `#readHead`. */
  readonly #counts: Uint32Array | undefined;
  readonly #ends: Uint32Array | undefined;
  readonly #readHead: HeadReader | undefined;
  readonly #slots = new Map<number, SlotInfo>();
  readonly #read: PostingsReader;
  /** Global number of the segment's first file. */
  readonly base: number;

  /**
   * `bytes`: the whole segment, or its key table when `read` gives the postings, or only its first
   * `keyBytes(nKeys)` (counts and ends left on disk) when `readHead` gives the rest.
   */
  constructor(bytes: Uint8Array, base: number, read?: PostingsReader, readHead?: HeadReader) {
    this.base = base;
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
    const nKeys = u32At(aligned, 0);
    this.nKeys = nKeys;
    this.nFiles = u32At(aligned, 4);
    const keys = new Uint32Array(aligned.buffer, aligned.byteOffset + 8, nKeys);
    // The whole key table in memory, or (a serving runtime's) left on disk but for what `bytes` hold.
    const inMemory = !readHead || aligned.length >= Segment.headBytes(nKeys);
    this.#keys = inMemory
      ? new KeyIndex(keys)
      : new DiskKeys(keys, (from, to) => readHead(4 * (2 + from), 4 * (2 + to)));
    this.#readHead = readHead;
    if (inMemory) {
      const u32 = new Uint32Array(aligned.buffer, aligned.byteOffset, 2 + 3 * nKeys);
      this.#counts = u32.subarray(2 + nKeys, 2 + 2 * nKeys);
      this.#ends = u32.subarray(2 + 2 * nKeys, 2 + 3 * nKeys);
    }
    const postings = aligned.subarray(4 * (2 + 3 * nKeys));
    this.#read = read ?? ((from, to) => postings.subarray(from, to));
  }

  /** Bytes of the key table: what a segment whose postings stay on disk keeps in its file's head. */
  static headBytes(nKeys: number): number {
    return 4 * (2 + 3 * nKeys);
  }

  /** Bytes up to the end of the keys: what a segment needs in memory when `readHead` gives the rest. */
  static keyBytes(nKeys: number): number {
    return 4 * (2 + nKeys);
  }

  /** Bytes this segment holds in memory for its keys (not counting a whole segment's postings). */
  get heldBytes(): number {
    return this.#keys.byteLength + (this.#counts ? 8 * this.nKeys : 0);
  }

  /** Slot of `key`, or -1. */
  find(key: number): number {
    return this.#keys.find(key);
  }

  #slot(s: number): SlotInfo {
    const counts = this.#counts;
    const ends = this.#ends;
    if (counts && ends) return [counts[s] as number, s === 0 ? 0 : (ends[s - 1] as number), ends[s] as number];
    const known = this.#slots.get(s);
    if (known) return known;
    const read = this.#readHead as HeadReader;
    const n = this.nKeys;
    const count = u32At(read(4 * (2 + n + s), 4 * (3 + n + s)), 0);
    const endsAt = 4 * (2 + 2 * n + s);
    const range = s === 0 ? read(endsAt, endsAt + 4) : read(endsAt - 4, endsAt + 4);
    const info: SlotInfo = s === 0 ? [count, 0, u32At(range, 0)] : [count, u32At(range, 0), u32At(range, 4)];
    if (this.#slots.size >= REMEMBERED_SLOTS) this.#slots.clear();
    this.#slots.set(s, info);
    return info;
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
      const [, from, to] = this.#slot(s);
      lo = Math.min(lo, from);
      hi = Math.max(hi, to);
    }
    return hi > lo && hi - lo <= MAX_AHEAD_BYTES ? { from: lo, bytes: this.#read(lo, hi) } : undefined;
  }

  #postings(s: number, ahead: ReadAhead | undefined): Uint8Array {
    const [, from, to] = this.#slot(s);
    if (ahead && from >= ahead.from && to <= ahead.from + ahead.bytes.length)
      return ahead.bytes.subarray(from - ahead.from, to - ahead.from);
    return this.#read(from, to);
  }

  count(key: number): number {
    const s = this.find(key);
    return s < 0 ? 0 : (this.#slot(s)[0] & ~BITMAP) >>> 0;
  }

  /** Calls `each` with the global number of every file holding `key`; `ahead`: bytes read by `readAhead`. */
  forEach(key: number, each: (file: number) => void, ahead?: ReadAhead): void {
    const s = this.find(key);
    if (s < 0) return;
    const p = this.#postings(s, ahead);
    const end = p.length;
    let at = 0;
    if (this.#slot(s)[0] & BITMAP) {
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
