/**
 * The index's file table: which path and signature each file number has. Written into the index file
 * by the build and read from it straight into one SharedArrayBuffer, handed to every search task, so
 * all threads read the same memory — no thread parses the file list or keeps a string per path.
 * Each directory's name is stored once and each file by its base name (on the 100k-file bench tree:
 * 1.7 MB of names instead of 4.1 MB of whole paths). Files are kept in table order — by directory,
 * then base name, each in byte order — so a path is found by two binary searches, and a directory's
 * files (and those below it) are runs of that order. Runs in workers, inline and on the main thread.
 *
 * Layout: i32 n, i32 m (directories), f64 signatures by file number (inode, size, mtime, ctime), i32
 * numbers[n] (file numbers in table order), i32 places[n] (each file number's place in it), i32
 * firsts[m + 1] (each directory's first place), i32 dirAt[m + 1] and baseAt[n + 1] (offsets into the
 * names), then the directories' names and the base names, UTF-8.
 */
import { isUtf8 } from 'node:buffer';

export interface FileTable {
  /** How many files the index holds. */
  readonly length: number;
  /** Which file number `rel` has, or -1 when the index does not hold it. */
  idOf(rel: string): number;
  /** The path of file number `id` (0 ≤ id < length). */
  relOf(id: number): string;
  /** The numbers of the files below `prefix` (a directory with a trailing slash, or '' for all). */
  under(prefix: string): number[];
  /** The directories that directly hold files ('' for the root), in table order. */
  dirs(): string[];
  /** The numbers of the files directly in the directories `from` … `to - 1` of `dirs()`. */
  filesIn(from: number, to: number): number[];
  /** inode, size, mtime, ctime per file number, as indexed. */
  sigs: Float64Array;
}

const SURROGATE_OR_HIGH = /[\ud800-\uffff]/;
const SLASH = 0x2f;

function layout(n: number, m: number) {
  const numbers = 8 + 32 * n;
  const places = numbers + 4 * n;
  const firsts = places + 4 * n;
  const dirAt = firsts + 4 * (m + 1);
  const baseAt = dirAt + 4 * (m + 1);
  return { numbers, places, firsts, dirAt, baseAt, text: baseAt + 4 * (n + 1) };
}

/** Packs `rels` (file number order) and their signatures into one shared buffer. */
export function shareTable(rels: readonly string[], sigs: Float64Array): SharedArrayBuffer {
  const t = new TableBuilder();
  t.add(rels);
  return t.pack(sigs);
}

/**
 * Builds a table from paths given in file number order, a batch at a time: a build adds each piece's
 * files as they come back from the workers (while others still run), and only packs at the end — on
 * the main thread, where it ends every rebuild. Each path is split once (directory numbered as first
 * met, base name); there is no sort of all the names (a sort of all 78k took ~130 ms).
 */
export class TableBuilder {
  readonly #met = new Map<string, number>();
  readonly #unique: string[] = [];
  readonly #dirOfFile: number[] = [];
  readonly #bases: string[] = [];
  #wide = false;

  add(rels: readonly string[]): void {
    const met = this.#met;
    for (const rel of rels) {
      const slash = rel.lastIndexOf('/');
      const dir = slash < 0 ? '' : rel.slice(0, slash);
      let k = met.get(dir);
      if (k === undefined) {
        k = this.#unique.length;
        met.set(dir, k);
        this.#unique.push(dir);
      }
      this.#dirOfFile.push(k);
      this.#bases.push(slash < 0 ? rel : rel.slice(slash + 1));
    }
    // Byte order is code point order, which is the strings' own (UTF-16 unit) order unless a name
    // holds a surrogate pair and another a character at U+E000 or above: only then are bytes compared.
    this.#wide ||= rels.some((r) => SURROGATE_OR_HIGH.test(r));
  }

  pack(sigs: Float64Array): SharedArrayBuffer {
    return packTable(this.#unique, Int32Array.from(this.#dirOfFile), this.#bases, this.#wide, sigs);
  }
}

/** The table of files whose directories are `unique[dirOfFile[i]]` and base names `bases[i]`. */
function packTable(
  unique: readonly string[],
  dirOfFile: Int32Array,
  bases: readonly string[],
  wide: boolean,
  sigs: Float64Array,
): SharedArrayBuffer {
  const n = bases.length;
  const before = wide
    ? (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))
    : (a: string, b: string) => (a < b ? -1 : 1);
  const m = unique.length;
  const rank = Array.from({ length: m }, (_, k) => k).sort((a, b) => before(unique[a] as string, unique[b] as string));
  const dirs = rank.map((k) => unique[k] as string);
  const dirNo = new Int32Array(m);
  for (let r = 0; r < m; r++) dirNo[rank[r] as number] = r;
  // Files by directory (a counting sort), then each directory's few by name.
  const firsts = new Int32Array(m + 1);
  for (let i = 0; i < n; i++) {
    const k = dirNo[dirOfFile[i] as number] as number;
    dirOfFile[i] = k;
    firsts[k + 1] = (firsts[k + 1] as number) + 1;
  }
  for (let k = 0; k < m; k++) firsts[k + 1] = (firsts[k + 1] as number) + (firsts[k] as number);
  const order = new Int32Array(n);
  const fill = firsts.slice(0, m);
  for (let i = 0; i < n; i++) {
    const k = dirOfFile[i] as number;
    order[fill[k] as number] = i;
    fill[k] = (fill[k] as number) + 1;
  }
  // A walk meets each directory's files in name order, so a run is sorted already but where names
  // are compared by bytes (`wide`) or came otherwise: checked, and sorted only then.
  const byName = (a: number, b: number) => before(bases[a] as string, bases[b] as string);
  for (let k = 0; k < m; k++) {
    const a = firsts[k] as number;
    const b = firsts[k + 1] as number;
    let sorted = true;
    for (let i = a + 1; i < b && sorted; i++) sorted = byName(order[i - 1] as number, order[i] as number) < 0;
    if (!sorted) order.subarray(a, b).set(Array.from(order.subarray(a, b)).sort(byName));
  }
  const dirText = dirs.join('');
  const baseText = Array.from(order, (id) => bases[id] as string).join('');
  const at = layout(n, m);
  const dirBytes = Buffer.byteLength(dirText);
  const sab = new SharedArrayBuffer(at.text + dirBytes + Buffer.byteLength(baseText));
  new Int32Array(sab, 0, 2).set([n, m]);
  new Float64Array(sab, 8, 4 * n).set(sigs.subarray(0, 4 * n));
  new Int32Array(sab, at.firsts, m + 1).set(firsts);
  const numbers = new Int32Array(sab, at.numbers, n);
  numbers.set(order);
  const places = new Int32Array(sab, at.places, n);
  for (let i = 0; i < n; i++) places[order[i] as number] = i;
  const names = Buffer.from(sab, at.text);
  names.write(dirText, 0);
  names.write(baseText, dirBytes);
  // Offsets: a string's length is its byte length when all of it is ASCII (then written at once).
  const ascii = dirBytes === dirText.length && names.length - dirBytes === baseText.length;
  const bytesOf = ascii ? (x: string) => x.length : (x: string) => Buffer.byteLength(x);
  const dirAt = new Int32Array(sab, at.dirAt, m + 1);
  let w = 0;
  for (let k = 0; k < m; k++) {
    dirAt[k] = w;
    w += bytesOf(dirs[k] as string);
  }
  dirAt[m] = w;
  const baseAt = new Int32Array(sab, at.baseAt, n + 1);
  for (let i = 0; i < n; i++) {
    baseAt[i] = w;
    w += bytesOf(bases[order[i] as number] as string);
  }
  baseAt[n] = w;
  return sab;
}

/**
 * Whether `sab` (read from an index file) is a table `readTable` can trust: every number and offset
 * in range, numbers and places inverse permutations, every directory holding files, names valid UTF-8
 * in strictly ascending byte order (directories, and base names within each) — else a damaged file
 * could make lookups read out of range or miss an indexed path.
 */
export function checkTable(sab: SharedArrayBuffer): boolean {
  if (sab.byteLength < 8) return false;
  const [n, m] = new Int32Array(sab, 0, 2) as unknown as [number, number];
  if (n < 0 || m < 0 || m > n || layout(n, m).text > sab.byteLength) return false;
  const t = views(sab);
  const { numbers, places, firsts, dirAt, baseAt, names } = t;
  if (dirAt[0] !== 0 || dirAt[m] !== baseAt[0] || baseAt[n] !== names.length || !isUtf8(names)) return false;
  if (firsts[0] !== 0 || firsts[m] !== n) return false;
  for (let k = 0; k < m; k++)
    if ((dirAt[k] as number) > (dirAt[k + 1] as number) || (firsts[k] as number) >= (firsts[k + 1] as number))
      return false;
  for (let i = 0; i < n; i++) if ((baseAt[i] as number) >= (baseAt[i + 1] as number)) return false;
  for (let k = 1; k < m; k++)
    if (names.compare(names, dirAt[k], dirAt[k + 1], dirAt[k - 1], dirAt[k]) >= 0) return false;
  for (let k = 0; k < m; k++)
    for (let i = (firsts[k] as number) + 1; i < (firsts[k + 1] as number); i++)
      if (names.compare(names, baseAt[i], baseAt[i + 1], baseAt[i - 1], baseAt[i]) >= 0) return false;
  if (names.subarray(baseAt[0]).includes(SLASH)) return false; // a base name holds no slash
  for (let i = 0; i < n; i++) {
    const id = numbers[i] as number;
    if (id < 0 || id >= n || places[id] !== i) return false;
  }
  return true;
}

function views(sab: SharedArrayBuffer) {
  const [n, m] = new Int32Array(sab, 0, 2) as unknown as [number, number];
  const at = layout(n, m);
  return {
    n,
    m,
    sigs: new Float64Array(sab, 8, 4 * n),
    numbers: new Int32Array(sab, at.numbers, n),
    places: new Int32Array(sab, at.places, n),
    firsts: new Int32Array(sab, at.firsts, m + 1),
    dirAt: new Int32Array(sab, at.dirAt, m + 1),
    baseAt: new Int32Array(sab, at.baseAt, n + 1),
    names: Buffer.from(sab, at.text),
  };
}

/** Views a shared table (no copy). */
export function readTable(sab: SharedArrayBuffer): FileTable {
  const { n, m, sigs, numbers, places, firsts, dirAt, baseAt, names } = views(sab);
  /** The first of `lo`..`hi` whose name (`from[i]`..`from[i + 1]`) is not below key[a..b]. */
  const firstFrom = (from: Int32Array, lo: number, hi: number, key: Buffer, a: number, b: number) => {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      // The stored name against the key: < 0 when it sorts before.
      if (names.compare(key, a, b, from[mid] as number, from[mid + 1] as number) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const same = (from: Int32Array, i: number, key: Buffer, a: number, b: number) =>
    names.compare(key, a, b, from[i] as number, from[i + 1] as number) === 0;
  /** The number of the directory key[0..b], or -1. */
  const dirNo = (key: Buffer, b: number) => {
    const k = firstFrom(dirAt, 0, m, key, 0, b);
    return k < m && same(dirAt, k, key, 0, b) ? k : -1;
  };
  const filesOf = (k: number, out: number[]) => {
    for (let i = firsts[k] as number; i < (firsts[k + 1] as number); i++) out.push(numbers[i] as number);
  };
  return {
    length: n,
    sigs,
    idOf(rel) {
      const key = Buffer.from(rel, 'utf8');
      const slash = key.lastIndexOf(SLASH);
      const k = dirNo(key, Math.max(0, slash));
      if (k < 0) return -1;
      const i = firstFrom(baseAt, firsts[k] as number, firsts[k + 1] as number, key, slash + 1, key.length);
      return i < (firsts[k + 1] as number) && same(baseAt, i, key, slash + 1, key.length) ? (numbers[i] as number) : -1;
    },
    relOf(id) {
      const i = places[id] as number;
      // The directory holding place i: the last whose first place is at or before it.
      let lo = 0;
      let hi = m - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if ((firsts[mid] as number) <= i) lo = mid;
        else hi = mid - 1;
      }
      const base = names.toString('utf8', baseAt[i] as number, baseAt[i + 1] as number);
      if (dirAt[lo] === dirAt[lo + 1]) return base; // the root
      return `${names.toString('utf8', dirAt[lo] as number, dirAt[lo + 1] as number)}/${base}`;
    },
    dirs() {
      return Array.from({ length: m }, (_, k) => names.toString('utf8', dirAt[k] as number, dirAt[k + 1] as number));
    },
    filesIn(from, to) {
      const out: number[] = [];
      const end = firsts[Math.min(to, m)] as number;
      for (let i = firsts[Math.max(0, from)] as number; i < end; i++) out.push(numbers[i] as number);
      return out;
    },
    under(prefix) {
      if (prefix === '') return Array.from(numbers);
      const key = Buffer.from(prefix, 'utf8');
      const out: number[] = [];
      const own = dirNo(key, key.length - 1);
      if (own >= 0) filesOf(own, out);
      // The directories below it: one run of directory order, all starting with `prefix`.
      for (let k = firstFrom(dirAt, 0, m, key, 0, key.length); k < m; k++) {
        const from = dirAt[k] as number;
        if ((dirAt[k + 1] as number) - from < key.length) break;
        if (names.compare(key, 0, key.length, from, from + key.length) !== 0) break;
        filesOf(k, out);
      }
      return out;
    },
  };
}
