/**
 * The keys a segment will most likely store as bitmaps (trigrams in an eighth of its files or more),
 * kept as bitmaps while the segment is built instead of as (key, file) pairs. On a source tree these
 * few thousand keys hold ~90% of all pairs: each would otherwise be written as a pair, radix-sorted
 * twice, then turned into a bitmap anyway. The set is guessed from the previous segment (files of one
 * tree share their common trigrams); a wrong guess costs only speed: encodeSegment writes every key
 * exactly as it would from pairs, so the segment's bytes do not depend on the guess. One per thread.
 */

/** Keys kept as bitmaps at most. */
export const MAX_DENSE_KEYS = 4096;
/** Files a segment built with dense keys may hold at most: a row is a bitmap of `files` files. */
export const MAX_DENSE_FILES = 4096;
/**
 * Key → slot by open addressing in a table small enough to stay in cache (48 KiB: a lookup per
 * distinct trigram of every file), at most half full.
 */
const TABLE_BITS = 13;
const EMPTY = -1;

export class DenseKeys {
  /** The dense keys, ascending; slot s is keys[s]. */
  readonly keys = new Uint32Array(MAX_DENSE_KEYS);
  n = 0;
  /**
   * Row s: the bitmap of the segment's files holding keys[s], `rowBytes` long — sized to the files a
   * segment is expected to hold, so that the rows a file touches stay in cache.
   */
  rows = new Uint8Array(0);
  rowBytes = 0;
  readonly #tableKeys = new Int32Array(1 << TABLE_BITS).fill(EMPTY);
  readonly #tableSlots = new Uint16Array(1 << TABLE_BITS);

  /** How many files the current rows have room for (0 when no key is dense). */
  get files(): number {
    return this.n === 0 ? Number.POSITIVE_INFINITY : this.rowBytes * 8;
  }

  /** Slot of `key`, or -1 when it is not dense. */
  slotOf(key: number): number {
    const mask = (1 << TABLE_BITS) - 1;
    const tk = this.#tableKeys;
    for (let h = Math.imul(key, 0x9e3779b1) >>> (32 - TABLE_BITS); ; h = (h + 1) & mask) {
      const k = tk[h] as number;
      if (k === key) return this.#tableSlots[h] as number;
      if (k === EMPTY) return -1;
    }
  }

  /**
   * Moves the dense keys among `keys[from, end)` (one file's distinct keys) into their bitmaps as
   * `file`'s, keeps the others in order from `from`, and returns where those end.
   */
  take(keys: Uint32Array, from: number, end: number, file: number): number {
    if (this.n === 0) return end;
    if (file >= this.rowBytes * 8) throw new Error(`the dense rows hold ${this.rowBytes * 8} files`);
    const rows = this.rows;
    const rowBytes = this.rowBytes;
    const tk = this.#tableKeys;
    const ts = this.#tableSlots;
    const mask = (1 << TABLE_BITS) - 1;
    const byte = file >>> 3;
    const bit = 1 << (file & 7);
    let w = from;
    for (let i = from; i < end; i++) {
      const k = keys[i] as number;
      let h = Math.imul(k, 0x9e3779b1) >>> (32 - TABLE_BITS);
      let t = tk[h] as number;
      while (t !== k && t !== EMPTY) {
        h = (h + 1) & mask;
        t = tk[h] as number;
      }
      if (t === EMPTY) keys[w++] = k;
      else {
        const at = (ts[h] as number) * rowBytes + byte;
        rows[at] = (rows[at] as number) | bit;
      }
    }
    return w;
  }

  /**
   * The next segment's dense keys (ascending) and how many files it may hold (its rows' length);
   * the rows must be clear.
   */
  reset(next: Uint32Array, count: number, files: number): void {
    this.#tableKeys.fill(EMPTY);
    const mask = (1 << TABLE_BITS) - 1;
    this.n = Math.min(count, MAX_DENSE_KEYS);
    const rowBytes = Math.ceil(Math.min(Math.max(files, 64), MAX_DENSE_FILES) / 64) * 8;
    if (this.rows.length < this.n * rowBytes || this.rows.length > 2 * this.n * rowBytes + 65536)
      this.rows = new Uint8Array(this.n * rowBytes);
    this.rowBytes = rowBytes;
    for (let s = 0; s < this.n; s++) {
      const key = next[s] as number;
      this.keys[s] = key;
      let h = Math.imul(key, 0x9e3779b1) >>> (32 - TABLE_BITS);
      while (this.#tableKeys[h] !== EMPTY) h = (h + 1) & mask;
      this.#tableKeys[h] = key;
      this.#tableSlots[h] = s;
    }
  }
}
