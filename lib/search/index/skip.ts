/**
 * The shard side of the prefilter: a grep shard skips a file only when the index holds it as it was
 * when indexed — vouched for by the main thread's watches (a changed file is among `candidates`), or
 * without watches checked here by its inode, size, mtime and ctime — and the plan ruled it out. A file the index does not hold — new, ignored or denied when the index was
 * built, unreadable, too large — is searched as always. The file table is the main thread's shared
 * buffer (table.ts): no thread keeps a copy of its own. Runs in workers and inline.
 */
import { fstatSync } from 'node:fs';
import { lstatIfAny } from '../../core/lstat_if_any.ts';
import { readTable } from './table.ts';

export interface GrepPrefilter {
  /** The index's file table (shareTable): which files it holds, as they were indexed. */
  table: SharedArrayBuffer;
  /** The shard root relative to the index root, with a trailing slash ('' at the root). */
  prefix: string;
  /** Indexed files (relative to the index root) that may match, or changed since indexing. */
  candidates: string[];
  /** No watches vouch for the rest: compare each file's state with the indexed one before skipping it. */
  validate: boolean;
}

interface Skipper {
  /** The file (relative to the shard root, reached at `at`, or open as `fd`) need not be searched. */
  skip(rel: string, at: string, fd?: number): boolean;
  /** The index holds the file. */
  indexed(rel: string): boolean;
}

export function skipperOf(p: GrepPrefilter | undefined): Skipper | undefined {
  if (!p) return undefined;
  const table = readTable(p.table);
  const sigs = table.sigs;
  const maybe = new Set(p.candidates);
  // A walk asks `indexed` and then `skip` of each file: the table's lookup (two binary searches of
  // names, ~5 µs) is made once per file, not twice.
  let lastRel = '';
  let lastId = -1; // no file is named ''
  const idOf = (r: string) => {
    if (r !== lastRel) {
      lastRel = r;
      lastId = table.idOf(r);
    }
    return lastId;
  };
  return {
    skip(rel, at, fd) {
      const r = p.prefix + rel;
      if (maybe.has(r)) return false;
      const id = idOf(r);
      if (id < 0) return false;
      if (!p.validate) return true;
      // No watches: the file is skipped only while it is exactly the file indexed.
      const st = fd === undefined ? lstatIfAny(at) : fstatSync(fd);
      return (
        st !== undefined &&
        st.ino === sigs[4 * id] &&
        st.size === sigs[4 * id + 1] &&
        st.mtimeMs === sigs[4 * id + 2] &&
        st.ctimeMs === sigs[4 * id + 3]
      );
    },
    indexed: (rel) => idOf(p.prefix + rel) >= 0,
  };
}
