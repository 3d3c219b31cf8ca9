/**
 * A segment's sorted trigram keys (24-bit), held compactly for lookups: a key's top byte picks a
 * bucket, and only its low 16 bits are stored — 2 bytes a key instead of 4. For a segment whose
 * bytes are all in memory; a serving runtime leaves its keys in the index file (disk_keys.ts). On a
 * tree of real code (110k files, 268 segments, 6.4M keys) the key tables as read (keys, counts and
 * ends: 12 bytes a key) were 73.5 MiB of the main thread's memory.
 */
export class KeyIndex {
  readonly length: number;
  /** Bucket b (top byte b) holds slots [starts[b], starts[b + 1]). */
  readonly #starts = new Uint32Array(257);
  readonly #low: Uint16Array;

  /** `keys`: ascending, each below 2^24. */
  constructor(keys: Uint32Array) {
    const n = keys.length;
    this.length = n;
    this.#low = new Uint16Array(n);
    const starts = this.#starts;
    for (let s = 0; s < n; s++) {
      const k = keys[s] as number;
      if (k > 0xffffff || (s > 0 && k <= (keys[s - 1] as number))) throw new Error('segment keys out of order');
      this.#low[s] = k & 0xffff;
      const b = (k >>> 16) + 1;
      starts[b] = (starts[b] as number) + 1;
    }
    for (let b = 1; b <= 256; b++) starts[b] = (starts[b] as number) + (starts[b - 1] as number);
  }

  /** Slot of `key`, or -1. */
  find(key: number): number {
    if (key < 0 || key > 0xffffff) return -1;
    const low = key & 0xffff;
    const l = this.#low;
    let lo = this.#starts[key >>> 16] as number;
    let hi = (this.#starts[(key >>> 16) + 1] as number) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const k = l[mid] as number;
      if (k === low) return mid;
      if (k < low) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Bytes held. */
  get byteLength(): number {
    return this.#low.byteLength + this.#starts.byteLength;
  }
}
