/**
 * The index on disk: one file per search root under the user's cache directory
 * ($XDG_CACHE_HOME/mewcode/index, else ~/.cache/mewcode/index), never in the tree. Written to a
 * temporary name and renamed, mode 0600 (trigram sets say something about the files' contents).
 * Layout: magic, u32 header length, JSON header (root, directories, segments), then 8-aligned the
 * file table exactly as the threads share it (table.ts: paths and signatures by file number, read
 * into one SharedArrayBuffer with no parsing), then the segments, each 4-aligned.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { mappedU8 } from '../../core/mapped.ts';
import { Segment } from './segment.ts';
import { checkTable, type FileTable, readTable } from './table.ts';

// 02: the file list moved from the JSON header into the binary table; an 01 file is not read (and
// a warm runtime rebuilds it).
const MAGIC = Buffer.from('MCIDX02\n');

export interface IndexHeader {
  root: string;
  builtAt: number;
  /** Every directory the build's walk entered. */
  dirs: string[];
  /**
   * The ignore files those directories' listings showed: while no directory changed since the build
   * began, the only ones there are.
   */
  ignoreFiles: string[];
  /**
   * The rule inputs outside the tree that were directories when the build began, by identity
   * (sweep.ts `outsideDirs`); absent in an index written before it was recorded.
   */
  outsideDirs?: string;
  /** Bytes of the file table. */
  tableBytes: number;
  /** Files per segment, in order. */
  segments: { files: number; byteLength: number }[];
  /** Bytes of text the index covers. */
  bytes: number;
}

export interface LoadedIndex extends IndexHeader {
  file: string;
  /** The file table (table.ts), shared with every search task. */
  table: SharedArrayBuffer;
  /** This thread's view of it: the indexed files by number. */
  rels: FileTable;
  parts: Segment[];
  /** Bytes of the index file. */
  size: number;
  /**
   * Closes the index file. Postings are read from it on demand, through a descriptor opened when it
   * was loaded — the file it names may since have been replaced by a rebuild's rename.
   */
  close(): void;
}

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(homedir(), '.cache');
  return path.join(base, 'mewcode', 'index');
}

/** Where the index of `root` (a real path) lives. */
export const indexFileFor = (root: string, dir = cacheDir()) =>
  path.join(dir, `${createHash('sha256').update(root).digest('hex').slice(0, 24)}.idx`);

const pad = (n: number, to: number) => (n + to - 1) & ~(to - 1);

export function writeIndex(
  file: string,
  header: IndexHeader,
  table: SharedArrayBuffer,
  segments: Iterable<Uint8Array>,
): number {
  const json = Buffer.from(JSON.stringify(header));
  const head = Buffer.alloc(pad(MAGIC.length + 4 + json.length, 8));
  MAGIC.copy(head, 0);
  head.writeUInt32LE(json.length, MAGIC.length);
  json.copy(head, MAGIC.length + 4);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  // Written piece by piece: no second copy of the whole index in memory.
  let size = 0;
  try {
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      const put = (b: Uint8Array) => {
        for (let done = 0; done < b.length; ) done += writeSync(fd, b, done, b.length - done, size + done);
        size += b.length;
      };
      put(head);
      put(new Uint8Array(table));
      for (const s of segments) {
        put(new Uint8Array(pad(size, 4) - size));
        put(s);
      }
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // never written
    }
    throw e;
  }
  return size;
}

/** Whether `file` is an index file of this version (by its magic): anything else is to be rebuilt. */
export function indexCurrent(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return false; // none, or an unusable cache directory (ENOTDIR, EACCES)
  }
  try {
    const start = Buffer.alloc(MAGIC.length);
    return fstatSync(fd).isFile() && readSync(fd, start, 0, start.length, 0) === start.length && start.equals(MAGIC);
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/**
 * The index in `file`, or undefined when there is none or it is not one this version reads. `known`:
 * the header and table just written (a build's), so they are not read back into a second copy.
 */
export function readIndex(file: string, root: string, known?: Known): LoadedIndex | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  try {
    const idx = readOpen(fd, file, root, () => open, known);
    if (!idx) close();
    return idx && Object.assign(idx, { close });
  } catch {
    close();
    return undefined;
  }
}

interface Known {
  header: IndexHeader;
  table: SharedArrayBuffer;
}

function readOpen(
  fd: number,
  file: string,
  root: string,
  isOpen: () => boolean,
  known: Known | undefined,
): Omit<LoadedIndex, 'close'> | undefined {
  const size = fstatSync(fd).size;
  const readAt = (at: number, length: number, into?: Uint8Array): Buffer => {
    if (!isOpen()) throw new Error(`the index ${file} was closed`);
    const b = into ? Buffer.from(into.buffer, into.byteOffset, length) : Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, b, got, length - got, at + got);
      if (n === 0) throw new Error(`the index ${file} ends early`);
      got += n;
    }
    return b;
  };
  if (size < MAGIC.length + 4) return undefined;
  const start = readAt(0, MAGIC.length + 4);
  if (!start.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const len = start.readUInt32LE(MAGIC.length);
  if (MAGIC.length + 4 + len > size) return undefined;
  let header: IndexHeader;
  try {
    header = known?.header ?? (JSON.parse(readAt(MAGIC.length + 4, len).toString('utf8')) as IndexHeader);
  } catch {
    return undefined;
  }
  const { tableBytes } = header;
  if (header.root !== root || !Array.isArray(header.dirs) || !Array.isArray(header.ignoreFiles)) return undefined;
  if (header.outsideDirs !== undefined && typeof header.outsideDirs !== 'string') return undefined;
  if (!Number.isSafeInteger(tableBytes) || tableBytes < 8) return undefined;
  const headEnd = pad(MAGIC.length + 4 + len, 8);
  if (headEnd + tableBytes > size) return undefined;
  let table = known?.table;
  if (!table) {
    // Read straight into the memory every thread shares: no parse, no second copy.
    table = new SharedArrayBuffer(tableBytes);
    readAt(headEnd, tableBytes, new Uint8Array(table));
    if (!checkTable(table)) return undefined;
  }
  const rels = readTable(table);
  const places = segmentPlaces(header.segments, headEnd + tableBytes, size, rels.length, (at) =>
    readAt(at, 4).readUInt32LE(0),
  );
  if (!places) return undefined;
  return withLazyParts({ ...header, file, table, rels, size }, () => {
    // One scratch for every segment's keys as read (each is compacted into its own table): 268
    // buffers of ~100 KB made and freed on a real tree were memory the C allocator then kept.
    let scratch = new Uint8Array(0);
    return places.map((p) => {
      const bytes = Segment.keyBytes(p.nKeys);
      if (scratch.length < bytes) scratch = mappedU8(Math.max(bytes, 2 * scratch.length));
      return segmentAt(p, file, readAt, readAt(p.at, bytes, scratch));
    });
  });
}

/** Where a segment lies in the index file, and its number of keys. */
interface SegmentPlace {
  at: number;
  byteLength: number;
  nKeys: number;
  base: number;
}

/**
 * Each segment's place, checked against the file's size and the table's files: undefined when they
 * do not fit (a damaged or truncated file, not read). One small read a segment (its key count).
 */
function segmentPlaces(
  segments: IndexHeader['segments'],
  from: number,
  size: number,
  files: number,
  nKeysAt: (at: number) => number,
): SegmentPlace[] | undefined {
  const places: SegmentPlace[] = [];
  let at = from;
  let base = 0;
  for (const s of segments) {
    at = pad(at, 4);
    if (at + s.byteLength > size || s.byteLength < 8) return undefined;
    const nKeys = nKeysAt(at);
    if (Segment.headBytes(nKeys) > s.byteLength) return undefined;
    places.push({ at, byteLength: s.byteLength, nKeys, base });
    at += s.byteLength;
    base += s.files;
  }
  return base === files ? places : undefined;
}

/**
 * A segment read back: only its keys stay in memory (compacted: segment.ts); a found key's count
 * and range, and its postings, are read at their offset when a query needs them.
 */
function segmentAt(
  p: SegmentPlace,
  file: string,
  readAt: (at: number, length: number) => Buffer,
  keys: Buffer,
): Segment {
  const headBytes = Segment.headBytes(p.nKeys);
  const from = p.at + headBytes;
  const end = p.at + p.byteLength;
  const damaged = () => new Error(`the index ${file} is damaged`);
  const read = (a: number, b: number) => {
    if (from + b > end || a > b) throw damaged();
    return readAt(from + a, b - a);
  };
  const readHead = (a: number, b: number) => {
    if (b > headBytes || a > b) throw damaged();
    return readAt(p.at + a, b - a);
  };
  return new Segment(keys, p.base, read, readHead);
}

/**
 * `idx` with its segments' key tables read when first asked for (`parts`), not at load: a runtime's
 * first search compares the tree's states in the pool meanwhile, which needs only the file table.
 * A key table found damaged then (keys out of order) throws at each ask.
 */
function withLazyParts<T extends object>(idx: T, load: () => Segment[]): T & { parts: Segment[] } {
  let parts: Segment[] | undefined;
  let failed: unknown;
  return Object.defineProperty(idx, 'parts', {
    enumerable: false,
    get(): Segment[] {
      if (failed) throw failed;
      try {
        parts ??= load();
      } catch (e) {
        failed = e;
        throw e;
      }
      return parts;
    },
  }) as T & { parts: Segment[] };
}
