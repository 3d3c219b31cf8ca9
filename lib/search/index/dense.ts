/**
 * The keys a segment will most likely store as bitmaps (trigrams in an eighth of its files or more),
 * kept as bitmaps while the segment is built instead of as (key, file) pairs. On a source tree these
 * few thousand keys hold ~90% of all pairs: each would otherwise be written as a pair, radix-sorted
 * twice, then turned into a bitmap anyway. The set is guessed from the previous segment (files of one
 * tree share their common trigrams); a wrong guess costs only speed: encodeSegment writes every key
 * exactly as it would from pairs, so the segment's bytes do not depend on the guess. One per thread.
 */

import { trigramWasm } from './ngrams.ts';
import { ROWS, ROWS_BYTES, TABLE_BITS, TABLE_KEYS, TABLE_SLOTS, tableHash } from './ngrams_wasm.ts';

/** Keys kept as bitmaps at most. */
export const MAX_DENSE_KEYS = 4096;
/** Files a segment built with dense keys may hold at most: a row is a bitmap of `files` files. */
export const MAX_DENSE_FILES = 4096;

const EMPTY = -1;

/** The DenseKeys whose table and rows the thread's module memory holds now. */
let owner: DenseKeys | undefined;

/**
 * Key → slot by open addressing (tableHash), at most half full, in the thread's WebAssembly module
 * memory: its loop looks each distinct trigram of a file up there (ngrams_wasm.ts). One in use per
 * thread: a new one takes the memory over, clears it, and the previous one may not be used again.
 */
export class DenseKeys {
  /** The dense keys, ascending; slot s is keys[s]. */
  readonly keys = new Uint32Array(MAX_DENSE_KEYS);
  n = 0;
  /**
   * Row s: the bitmap of the segment's files holding keys[s], `rowBytes` long — sized to the files a
   * segment is expected to hold, so that the rows a file touches stay in cache.
   */
  readonly rows: Uint8Array;
  rowBytes = 0;
  readonly #tableKeys: Int32Array;
  readonly #tableSlots: Int32Array;

  constructor() {
    const { buffer } = trigramWasm();
    this.rows = new Uint8Array(buffer, ROWS, ROWS_BYTES);
    // Fresh module memory is zero: clearing it anyway would make all 2 MiB resident.
    if (owner) this.rows.fill(0);
    this.#tableKeys = new Int32Array(buffer, TABLE_KEYS, 1 << TABLE_BITS).fill(EMPTY);
    this.#tableSlots = new Int32Array(buffer, TABLE_SLOTS, 1 << TABLE_BITS);
    owner = this;
  }

  /** How many files the current rows have room for (unbounded when no key is dense). */
  get files(): number {
    return this.n === 0 ? Number.POSITIVE_INFINITY : this.rowBytes * 8;
  }

  /** Slot of `key`, or -1 when it is not dense. */
  slotOf(key: number): number {
    const mask = (1 << TABLE_BITS) - 1;
    const tk = this.#tableKeys;
    for (let h = tableHash(key); ; h = (h + 1) & mask) {
      const k = tk[h] as number;
      if (k === key) return this.#tableSlots[h] as number;
      if (k === EMPTY) return -1;
    }
  }

  /**
   * Writes `bytes`' distinct keys into `out` from `at` but the dense ones, which are set in their
   * rows as `file`'s (in the module); returns the end and how many keys there were in all.
   */
  into(bytes: Uint8Array, out: Uint32Array, at: number, file: number): { end: number; total: number } {
    this.#check(file);
    const m = trigramWasm();
    const end = m.into(bytes, out, at, this.rowBytes, this.n === 0 ? -1 : file);
    return { end, total: m.total() };
  }

  /**
   * Moves the dense keys among `keys[from, end)` (one file's distinct keys) into their bitmaps as
   * `file`'s, keeps the others in order from `from`, and returns where those end.
   */
  take(keys: Uint32Array, from: number, end: number, file: number): number {
    this.#check(file);
    if (this.n === 0) return end;
    const rows = this.rows;
    const byte = file >>> 3;
    const bit = 1 << (file & 7);
    let w = from;
    for (let i = from; i < end; i++) {
      const k = keys[i] as number;
      const s = this.slotOf(k);
      if (s < 0) keys[w++] = k;
      else {
        const at = s * this.rowBytes + byte;
        rows[at] = (rows[at] as number) | bit;
      }
    }
    return w;
  }

  #check(file: number): void {
    if (owner !== this) throw new Error('this DenseKeys was superseded by a newer one in the same thread');
    if (this.n > 0 && file >= this.rowBytes * 8) throw new Error(`the dense rows hold ${this.rowBytes * 8} files`);
  }

  /**
   * The next segment's dense keys (ascending) and how many files it may hold (its rows' length);
   * the rows must be clear.
   */
  reset(next: Uint32Array, count: number, files: number): void {
    this.#check(0);
    this.#tableKeys.fill(EMPTY);
    const mask = (1 << TABLE_BITS) - 1;
    const rowBytes = Math.ceil(Math.min(Math.max(files, 64), MAX_DENSE_FILES) / 64) * 8;
    this.n = Math.min(count, MAX_DENSE_KEYS, Math.floor(ROWS_BYTES / rowBytes));
    this.rowBytes = rowBytes;
    for (let s = 0; s < this.n; s++) {
      const key = next[s] as number;
      this.keys[s] = key;
      let h = tableHash(key);
      while (this.#tableKeys[h] !== EMPTY) h = (h + 1) & mask;
      this.#tableKeys[h] = key;
      this.#tableSlots[h] = s;
    }
  }
}
