/**
 * A segment's sorted trigram keys left in the index file, for a serving runtime: only every
 * BLOCK_KEYS-th key stays in memory, which says in which block of the file's key table a key would
 * be; a lookup reads that block (one small read) and searches it, once its hash matches the one
 * taken at load (a key table changed in place would otherwise rule out files that hold the key).
 * The keys held compactly in memory (key_index.ts) were 6.6 MiB of a serving runtime on a 104k-file
 * tree (38 segments, 3.3M keys); the sample and the hashes are 1/16 of that. Planning a query costs
 * a read per segment and key it asks for: on that tree 0.1–1 ms more for most patterns, 6 ms for one
 * of a hundred alternatives (a class beside a literal), against searches of 20–140 ms
 * (docs/benchmarks.md). The keys a query asks for are asked again and again (each count, read-ahead
 * and decode in a segment finds its key anew), so the last ones found or missed are remembered, and
 * so is the last block read. Main thread.
 */

/** Keys per block: one read of 4 × BLOCK_KEYS bytes a lookup. */
const BLOCK_KEYS = 64;
/** Lookups a segment remembers: more than a query's keys, as a query asks for each several times. */
const REMEMBERED = 128;

/** Reads keys [from, to) of the segment's key table (ascending u32s, little-endian). */
type KeysReader = (from: number, to: number) => Uint8Array;

export class DiskKeys {
  readonly length: number;
  /** Key BLOCK_KEYS × i, for each block i. */
  readonly #sample: Uint32Array;
  /** A hash of each block's keys as read at load: a block read back otherwise is not used. */
  readonly #sums: Uint32Array;
  readonly #read: KeysReader;
  /** Keys looked up lately and their slots (-1: absent), in a ring. */
  readonly #asked = new Int32Array(REMEMBERED).fill(-1);
  readonly #slots = new Int32Array(REMEMBERED);
  #next = 0;
  /** The block read last (keys that sort close together are often asked for in a row). */
  #lastBlock = -1;
  readonly #keysOfLast = new Uint32Array(BLOCK_KEYS);
  #last = this.#keysOfLast;

  /** `keys`: the whole key table as read at load (checked ascending, each below 2^24), then dropped. */
  constructor(keys: Uint32Array, read: KeysReader) {
    const n = keys.length;
    this.length = n;
    this.#read = read;
    this.#sample = new Uint32Array(Math.ceil(n / BLOCK_KEYS));
    this.#sums = new Uint32Array(this.#sample.length);
    let prev = -1;
    for (let i = 0; i < this.#sample.length; i++) {
      const block = keys.subarray(i * BLOCK_KEYS, (i + 1) * BLOCK_KEYS);
      for (const k of block) {
        if (k > 0xffffff) throw new Error('a segment key of more than three bytes');
        if (k <= prev) throw new Error('segment keys out of order');
        prev = k;
      }
      this.#sample[i] = block[0] as number;
      this.#sums[i] = blockSum(block);
    }
  }

  /** Slot of `key`, or -1. */
  find(key: number): number {
    // Only keys the table may hold: the ring below stores integers, and would take 5.5 for 5.
    if (!Number.isInteger(key) || key < 0 || key > 0xffffff) return -1;
    const at = this.#asked.indexOf(key);
    if (at !== -1) return this.#slots[at] as number;
    const slot = this.#lookUp(key);
    this.#asked[this.#next] = key;
    this.#slots[this.#next] = slot;
    this.#next = (this.#next + 1) % REMEMBERED;
    return slot;
  }

  #lookUp(key: number): number {
    const sample = this.#sample;
    // The last block whose first key is at most `key`.
    let lo = 0;
    let hi = sample.length - 1;
    if (hi < 0 || key < (sample[0] as number)) return -1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((sample[mid] as number) <= key) lo = mid;
      else hi = mid - 1;
    }
    const from = lo * BLOCK_KEYS;
    const block = this.#block(lo);
    let a = 0;
    let b = block.length - 1;
    while (a <= b) {
      const mid = (a + b) >>> 1;
      const k = block[mid] as number;
      if (k === key) return from + mid;
      if (k < key) a = mid + 1;
      else b = mid - 1;
    }
    return -1;
  }

  /**
   * The keys of block `i`: the last block read, or read now. A block that reads back other than the
   * table checked at load (the file changed in place, or damaged) throws: a key missing from it
   * would otherwise rule out files that hold it, and the search answer "no matches".
   */
  #block(i: number): Uint32Array {
    if (this.#lastBlock === i) return this.#last;
    this.#lastBlock = -1; // nothing cached until this block is whole
    const from = i * BLOCK_KEYS;
    const to = Math.min(this.length, from + BLOCK_KEYS);
    const bytes = this.#read(from, to);
    if (bytes.byteLength !== 4 * (to - from)) throw new Error('a segment key block read short');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const keys = this.#keysOfLast;
    for (let j = 0; j < to - from; j++) keys[j] = view.getUint32(4 * j, true);
    const block = keys.subarray(0, to - from);
    if (blockSum(block) !== this.#sums[i]) throw new Error('a segment key block differs from the table read at load');
    this.#lastBlock = i;
    this.#last = block;
    return block;
  }

  /** Bytes held. */
  get byteLength(): number {
    const ring = this.#asked.byteLength + this.#slots.byteLength;
    return this.#sample.byteLength + this.#sums.byteLength + ring + this.#keysOfLast.byteLength;
  }
}

/** A 32-bit hash of a block's keys (FNV-1a over the words): any change a damaged file makes shows. */
function blockSum(keys: Uint32Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < keys.length; i++) h = Math.imul(h ^ (keys[i] as number), 0x01000193);
  return h >>> 0;
}
