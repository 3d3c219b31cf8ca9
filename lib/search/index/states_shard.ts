/**
 * The pool's part of a warm runtime's background check (background_check.ts): which of a range of
 * indexed files are no longer as indexed — their inode, size, mtime or ctime differs, or they are
 * gone. Run in the pool, it queues behind the searches already queued (the one that loaded the index
 * among them) instead of competing with them for the cores, and leaves the main thread free. The
 * file table is the main thread's shared buffer (table.ts). Runs in workers and inline.
 */
import { lstatIfAny } from '../../core/lstat_if_any.ts';
import { dirOf, underRoot } from '../rel_paths.ts';
import { type FileTable, readTable } from './table.ts';

export interface StatesShard {
  kind: 'index-states';
  root: string;
  /** The index's file table (shareTable). */
  table: SharedArrayBuffer;
  /** The file numbers to compare: `from` up to (not including) `to`. */
  from: number;
  to: number;
  /** Only the files directly in these directories (all when absent). */
  onlyIn?: string[];
  /** These file numbers instead of `from` … `to`. */
  ids?: number[];
}

export interface StatesShardResult {
  kind: 'index-states';
  /** The files not as indexed (`file`: still a file; else gone, or another kind of entry now). */
  unlike: { rel: string; file: boolean }[];
}

export function runStatesShard(t: StatesShard): StatesShardResult {
  const onlyIn = t.onlyIn && new Set(t.onlyIn);
  const files = readTable(t.table);
  const unlike = t.ids ? unlikeOf(t.root, files, t.ids) : unlikeIndexed(t.root, files, t.from, t.to, onlyIn);
  return { kind: 'index-states', unlike };
}

/** The files of numbers `from` to `to` whose state is not the indexed one — of those directly in `onlyIn`, when given. */
export function unlikeIndexed(
  root: string,
  files: FileTable,
  from: number,
  to: number,
  onlyIn?: ReadonlySet<string>,
): { rel: string; file: boolean }[] {
  const out: { rel: string; file: boolean }[] = [];
  for (let i = from; i < Math.min(to, files.length); i++) {
    const rel = files.relOf(i);
    if (!onlyIn || onlyIn.has(dirOf(rel))) unlikeAt(root, files, i, rel, out);
  }
  return out;
}

/** Of the files numbered `ids`, those whose state is not the indexed one. */
function unlikeOf(root: string, files: FileTable, ids: readonly number[]): { rel: string; file: boolean }[] {
  const out: { rel: string; file: boolean }[] = [];
  for (const i of ids) if (i >= 0 && i < files.length) unlikeAt(root, files, i, files.relOf(i), out);
  return out;
}

/** Adds file `i` (at `rel`) to `out` when its state is not the indexed one. */
function unlikeAt(root: string, files: FileTable, i: number, rel: string, out: { rel: string; file: boolean }[]): void {
  const s = files.sigs;
  const st = lstatIfAny(underRoot(root, rel));
  if (
    !st ||
    st.ino !== s[4 * i] ||
    st.size !== s[4 * i + 1] ||
    st.mtimeMs !== s[4 * i + 2] ||
    st.ctimeMs !== s[4 * i + 3]
  )
    out.push({ rel, file: st?.isFile() === true });
}
