/**
 * The shard side of the prefilter: a grep shard skips a file only when the index holds it as it was
 * when indexed — vouched for by the main thread's watches (a changed file is among `candidates`), or
 * without watches checked here by its inode, size, mtime and ctime — and the plan ruled it out. A file the index does not hold — new, ignored or denied when the index was
 * built, unreadable, too large — is searched as always. Each thread reads the index's file list once
 * per build. Runs in workers and inline.
 */
import { closeSync, lstatSync, openSync, readSync } from 'node:fs';

export interface GrepPrefilter {
  /** The index file and its build time: which file list `candidates` refers to. */
  file: string;
  builtAt: number;
  /** The shard root relative to the index root, with a trailing slash ('' at the root). */
  prefix: string;
  /** Indexed files (relative to the index root) that may match, or changed since indexing. */
  candidates: string[];
  /** No watches vouch for the rest: compare each file's state with the indexed one before skipping it. */
  validate: boolean;
}

interface Table {
  ids: Map<string, number>;
  /** inode, size, mtime, ctime per file, as indexed. */
  sigs: Float64Array;
}

const indexed = new Map<string, Table>();
const keyOf = (file: string, builtAt: number) => `${builtAt}:${file}`;

/** Hands this thread's loaded file table over, so the inline path does not read it again. */
export function rememberIndexed(file: string, builtAt: number, rels: readonly string[], sigs: Float64Array): void {
  indexed.clear();
  indexed.set(keyOf(file, builtAt), { ids: new Map(rels.map((r, i) => [r, i])), sigs });
}

export interface Skipper {
  /** The file (relative to the shard root, reached at `at`) need not be searched. */
  skip(rel: string, at: string): boolean;
  /** The index holds the file. */
  indexed(rel: string): boolean;
}

export function skipperOf(p: GrepPrefilter | undefined): Skipper | undefined {
  if (!p) return undefined;
  const key = keyOf(p.file, p.builtAt);
  let held = indexed.get(key);
  if (!held) {
    const table = readTable(p.file, p.builtAt);
    if (!table) return undefined; // rebuilt or gone meanwhile: search everything
    indexed.clear();
    indexed.set(key, table);
    held = table;
  }
  const { ids, sigs } = held;
  const maybe = new Set(p.candidates);
  return {
    skip(rel, at) {
      const r = p.prefix + rel;
      const id = ids.get(r);
      if (id === undefined || maybe.has(r)) return false;
      if (!p.validate) return true;
      // No watches: the file is skipped only while it is exactly the file indexed.
      const st = lstatSync(at, { throwIfNoEntry: false });
      return (
        st !== undefined &&
        st.ino === sigs[4 * id] &&
        st.size === sigs[4 * id + 1] &&
        st.mtimeMs === sigs[4 * id + 2] &&
        st.ctimeMs === sigs[4 * id + 3]
      );
    },
    indexed: (rel) => ids.has(p.prefix + rel),
  };
}

/** The index file's file table, when it is still the build asked for. */
function readTable(file: string, builtAt: number): Table | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.alloc(12);
    if (readSync(fd, head, 0, 12, 0) !== 12) return undefined;
    const len = head.readUInt32LE(8);
    const json = Buffer.alloc(len);
    if (readSync(fd, json, 0, len, 12) !== len) return undefined;
    const h = JSON.parse(json.toString('utf8')) as { builtAt?: number; rels?: string[] };
    if (h.builtAt !== builtAt || !Array.isArray(h.rels)) return undefined;
    const sigs = new Float64Array(h.rels.length * 4);
    const bytes = new Uint8Array(sigs.buffer);
    if (readSync(fd, bytes, 0, bytes.length, (12 + len + 7) & ~7) !== bytes.length) return undefined;
    return { ids: new Map(h.rels.map((r, i) => [r, i])), sigs };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
