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
    return idx && { ...idx, close };
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
  const n = rels.length;
  const parts: Segment[] = [];
  let at = headEnd + tableBytes;
  let base = 0;
  for (const s of header.segments) {
    at = pad(at, 4);
    if (at + s.byteLength > size || s.byteLength < 8) return undefined;
    // Only the keys stay in memory (compacted: segment.ts); a found key's count and range, and its
    // postings, are read at their offset when a query needs them.
    const nKeys = readAt(at, 4).readUInt32LE(0);
    const headBytes = Segment.headBytes(nKeys);
    if (headBytes > s.byteLength) return undefined;
    const segAt = at;
    const from = at + headBytes;
    const end = at + s.byteLength;
    const damaged = () => new Error(`the index ${file} is damaged`);
    const read = (a: number, b: number) => {
      if (from + b > end || a > b) throw damaged();
      return readAt(from + a, b - a);
    };
    const readHead = (a: number, b: number) => {
      if (b > headBytes || a > b) throw damaged();
      return readAt(segAt + a, b - a);
    };
    parts.push(new Segment(readAt(at, Segment.keyBytes(nKeys)), base, read, readHead));
    at = end;
    base += s.files;
  }
  if (base !== n) return undefined;
  return { ...header, file, table, rels, parts, size };
}
