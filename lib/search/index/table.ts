/**
 * The index's file table as the search shards read it: one SharedArrayBuffer made once per loaded
 * index on the main thread and handed to every task, so all threads read the same memory — no
 * worker parses the file list or keeps a Map of its own. Layout: f64 signatures by file number
 * (inode, size, mtime, ctime), then i32 n, i32 numbers[n] (file numbers in path byte order), i32
 * offsets[n + 1] into the paths, then the paths' UTF-8 bytes in byte order. A path is looked up by
 * binary search on its bytes. Runs in workers, inline and on the main thread.
 */

export interface FileTable {
  /** Which file number `rel` has, or -1 when the index does not hold it. */
  idOf(rel: string): number;
  /** inode, size, mtime, ctime per file number, as indexed. */
  sigs: Float64Array;
}

const SURROGATE_OR_HIGH = /[\ud800-\uffff]/;

/** Packs `rels` (file number order) and their signatures into one shared buffer. */
export function shareTable(rels: readonly string[], sigs: Float64Array): SharedArrayBuffer {
  const n = rels.length;
  // All paths encoded into one buffer, compared in place: no Buffer object per path.
  let text = 0;
  for (const r of rels) text += Buffer.byteLength(r, 'utf8');
  const all = Buffer.allocUnsafe(text);
  const from = new Int32Array(n + 1);
  for (let i = 0, at = 0; i < n; i++) {
    from[i] = at;
    at += all.write(rels[i] as string, at, 'utf8');
    from[i + 1] = at;
  }
  // Byte order is code point order, which is the strings' own (UTF-16 unit) order unless a path holds
  // a surrogate pair and another a character at U+E000 or above: only then are bytes compared.
  const byUnits = !rels.some((r) => SURROGATE_OR_HIGH.test(r));
  const order = Array.from({ length: n }, (_, i) => i).sort(
    byUnits
      ? (a, b) => ((rels[a] as string) < (rels[b] as string) ? -1 : 1)
      : (a, b) => all.compare(all, from[b] as number, from[b + 1] as number, from[a] as number, from[a + 1] as number),
  );
  const { ints, blobAt } = layout(n);
  const sab = new SharedArrayBuffer(blobAt + text);
  new Int32Array(sab, 0, 1)[0] = n;
  new Float64Array(sab, 8, 4 * n).set(sigs.subarray(0, 4 * n));
  const numbers = new Int32Array(sab, ints, n);
  const offsets = new Int32Array(sab, ints + 4 * n, n + 1);
  const blob = Buffer.from(sab, blobAt);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const id = order[i] as number;
    numbers[i] = id;
    offsets[i] = at;
    at += all.copy(blob, at, from[id] as number, from[id + 1] as number);
  }
  offsets[n] = at;
  return sab;
}

// i32 n (padded to 8), then the signatures, then the numbers and offsets, then the paths.
const layout = (n: number) => ({ ints: 8 + 32 * n, blobAt: 8 + 32 * n + 4 * (2 * n + 1) });

/** Views a shared table (no copy). */
export function readTable(sab: SharedArrayBuffer): FileTable {
  const n = new Int32Array(sab, 0, 1)[0] as number;
  const { ints, blobAt } = layout(n);
  const numbers = new Int32Array(sab, ints, n);
  const offsets = new Int32Array(sab, ints + 4 * n, n + 1);
  const blob = Buffer.from(sab, blobAt);
  return {
    sigs: new Float64Array(sab, 8, 4 * n),
    idOf(rel) {
      const key = Buffer.from(rel, 'utf8');
      let lo = 0;
      let hi = n - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        // The stored path against the key: < 0 when it sorts before.
        const c = blob.compare(key, 0, key.length, offsets[mid] as number, offsets[mid + 1] as number);
        if (c === 0) return numbers[mid] as number;
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
      }
      return -1;
    },
  };
}
