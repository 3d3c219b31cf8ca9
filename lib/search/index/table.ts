/**
 * The index's file table: which path and signature each file number has. Written into the index file
 * by the build and read from it straight into one SharedArrayBuffer, handed to every search task, so
 * all threads read the same memory — no thread parses the file list or keeps a string per path.
 * Layout: i32 n (padded to 8), f64 signatures by file number (inode, size, mtime, ctime), i32
 * numbers[n] (file numbers in path byte order), i32 places[n] (each file number's place in that
 * order), i32 offsets[n + 1] into the paths, then the paths' UTF-8 bytes in byte order. A path is
 * looked up by binary search on its bytes; a directory's files are one run of that order. Runs in
 * workers, inline and on the main thread.
 */
import { isUtf8 } from 'node:buffer';

export interface FileTable {
  /** How many files the index holds. */
  readonly length: number;
  /** Which file number `rel` has, or -1 when the index does not hold it. */
  idOf(rel: string): number;
  /** The path of file number `id` (0 ≤ id < length). */
  relOf(id: number): string;
  /** The numbers of the files whose paths start with `prefix`, in path byte order. */
  under(prefix: string): number[];
  /** inode, size, mtime, ctime per file number, as indexed. */
  sigs: Float64Array;
}

const SURROGATE_OR_HIGH = /[\ud800-\uffff]/;

// i32 n (padded to 8), then the signatures, then numbers, places and offsets, then the paths.
const layout = (n: number) => ({ ints: 8 + 32 * n, blobAt: 8 + 32 * n + 4 * (3 * n + 1) });

/** Packs `rels` (file number order) and their signatures into one shared buffer. */
export function shareTable(rels: readonly string[], sigs: Float64Array): SharedArrayBuffer {
  const n = rels.length;
  let text = 0;
  for (const r of rels) text += Buffer.byteLength(r, 'utf8');
  const { ints, blobAt } = layout(n);
  const sab = new SharedArrayBuffer(blobAt + text);
  new Int32Array(sab, 0, 1)[0] = n;
  new Float64Array(sab, 8, 4 * n).set(sigs.subarray(0, 4 * n));
  const numbers = new Int32Array(sab, ints, n);
  const places = new Int32Array(sab, ints + 4 * n, n);
  const offsets = new Int32Array(sab, ints + 8 * n, n + 1);
  // Byte order is code point order, which is the strings' own (UTF-16 unit) order unless a path holds
  // a surrogate pair and another a character at U+E000 or above: only then are bytes compared.
  for (let i = 0; i < n; i++) numbers[i] = i;
  if (!rels.some((r) => SURROGATE_OR_HIGH.test(r)))
    numbers.sort((a, b) => ((rels[a] as string) < (rels[b] as string) ? -1 : 1));
  else {
    const bytes = rels.map((r) => Buffer.from(r, 'utf8'));
    numbers.sort((a, b) => Buffer.compare(bytes[a] as Buffer, bytes[b] as Buffer));
  }
  const blob = Buffer.from(sab, blobAt);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const id = numbers[i] as number;
    places[id] = i;
    offsets[i] = at;
    at += blob.write(rels[id] as string, at, 'utf8');
  }
  offsets[n] = at;
  return sab;
}

/**
 * Whether `sab` (read from an index file) is a table `readTable` can trust: every number and offset
 * in range, numbers and places inverse permutations, paths valid UTF-8 in strictly ascending byte
 * order — else a damaged file could make lookups read out of range or miss an indexed path.
 */
export function checkTable(sab: SharedArrayBuffer): boolean {
  if (sab.byteLength < 8) return false;
  const n = new Int32Array(sab, 0, 1)[0] as number;
  const { ints, blobAt } = layout(n);
  if (n < 0 || blobAt > sab.byteLength) return false;
  const numbers = new Int32Array(sab, ints, n);
  const places = new Int32Array(sab, ints + 4 * n, n);
  const offsets = new Int32Array(sab, ints + 8 * n, n + 1);
  const blob = Buffer.from(sab, blobAt);
  if (offsets[0] !== 0 || offsets[n] !== blob.length || !isUtf8(blob)) return false;
  for (let i = 0; i < n; i++) if ((offsets[i] as number) > (offsets[i + 1] as number)) return false;
  for (let i = 0; i < n; i++) {
    const id = numbers[i] as number;
    if (id < 0 || id >= n || places[id] !== i) return false;
    if (i > 0 && blob.compare(blob, offsets[i], offsets[i + 1], offsets[i - 1], offsets[i]) >= 0) return false;
  }
  return true;
}

/** Views a shared table (no copy). */
export function readTable(sab: SharedArrayBuffer): FileTable {
  const n = new Int32Array(sab, 0, 1)[0] as number;
  const { ints, blobAt } = layout(n);
  const numbers = new Int32Array(sab, ints, n);
  const places = new Int32Array(sab, ints + 4 * n, n);
  const offsets = new Int32Array(sab, ints + 8 * n, n + 1);
  const blob = Buffer.from(sab, blobAt);
  /** The first place whose path is not below `key` in byte order. */
  const firstFrom = (key: Buffer) => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      // The stored path against the key: < 0 when it sorts before.
      if (blob.compare(key, 0, key.length, offsets[mid] as number, offsets[mid + 1] as number) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return {
    length: n,
    sigs: new Float64Array(sab, 8, 4 * n),
    idOf(rel) {
      const key = Buffer.from(rel, 'utf8');
      const at = firstFrom(key);
      if (at === n || blob.compare(key, 0, key.length, offsets[at] as number, offsets[at + 1] as number) !== 0)
        return -1;
      return numbers[at] as number;
    },
    relOf(id) {
      const at = places[id] as number;
      return blob.toString('utf8', offsets[at] as number, offsets[at + 1] as number);
    },
    under(prefix) {
      const key = Buffer.from(prefix, 'utf8');
      const out: number[] = [];
      for (let at = firstFrom(key); at < n; at++) {
        const from = offsets[at] as number;
        const to = offsets[at + 1] as number;
        if (to - from < key.length || blob.compare(key, 0, key.length, from, from + key.length) !== 0) break;
        out.push(numbers[at] as number);
      }
      return out;
    },
  };
}
