/**
 * What a warm runtime checks once when it starts using an index, after its watches opened
 * (background_check.ts): whether a directory changed since the build began (it may hold a directory
 * the build never met) or an ignore rule did; which indexed files are no longer as indexed is the
 * pool's part (states_shard.ts). And the states that tell a replaced root or an unwatched rule
 * change later. Main thread.
 */
import path from 'node:path';
import { lstatIfAny } from '../../core/lstat_if_any.ts';
import { RACY_MS } from '../dircache.ts';
import { IGNORE_FILES } from '../ignore.ts';
import type { LoadedIndex } from './store.ts';
import { excludeState } from './summary.ts';

/** Some directory of `dirs` is gone, or changed at or after `since` (ms). */
function dirChangedSince(root: string, dirs: Iterable<string>, since: number): boolean {
  for (const d of dirs) {
    const st = lstatIfAny(path.join(root, d));
    if (!st || st.mtimeMs >= since || st.ctimeMs >= since) return true;
  }
  return false;
}

/** Every ignore file `dirs` could hold: each name in each directory. */
function* ignoreFilesIn(dirs: Iterable<string>, names: readonly string[]): Generator<string> {
  for (const d of dirs) for (const n of names) yield d === '' ? n : `${d}/${n}`;
}

/**
 * Of the ignore files `files` (relative to the root): those with another hard link (a write through
 * that other name changes the rules without an event in any watched directory), and whether any of
 * them, or the root's `.git/info/exclude`, changed at or after `since` (ms) — before the watches
 * began, so unseen.
 */
function ignoreFileStates(
  root: string,
  files: Iterable<string>,
  since: number,
): { linked: string[]; changedSince: boolean } {
  const linked: string[] = [];
  const recent = (st: { mtimeMs: number; ctimeMs: number } | undefined) =>
    st !== undefined && (st.mtimeMs >= since || st.ctimeMs >= since);
  let changedSince = recent(lstatIfAny(path.join(root, '.git', 'info', 'exclude')));
  for (const rel of files) {
    const file = path.join(root, rel);
    const st = lstatIfAny(file);
    if (st?.isFile() && st.nlink > 1) linked.push(file);
    if (recent(st)) changedSince = true;
  }
  return { linked, changedSince };
}

/**
 * What the rules and directories say once watching began: `unwatched` when a directory changed since
 * the build began (it may hold a directory the build never met), or an ignore rule did (in place: no
 * directory's times change); `linked`: the ignore files with another hard link. `unseen`: the
 * directories of `dirs` not watched all through the build (the others' changes came as events).
 */
export function rulesAtStart(
  root: string,
  idx: LoadedIndex,
  dirs: ReadonlySet<string>,
  unseen: ReadonlySet<string> = dirs,
): { unwatched: boolean; linked: string[] } {
  const since = idx.builtAt - RACY_MS;
  const dirsChanged = dirChangedSince(root, unseen, since);
  // An unchanged directory holds the ignore files its listing showed in the build, and no other.
  const files = dirsChanged ? ignoreFilesIn(dirs, IGNORE_FILES) : idx.ignoreFiles;
  const ignores = ignoreFileStates(root, files, since);
  return { unwatched: dirsChanged || ignores.changedSince, linked: ignores.linked };
}

/** The files' inode, size, mtime and ctime, as one string. */
function statesOf(files: readonly string[]): string {
  return files
    .map((f) => {
      const st = lstatIfAny(f);
      return st ? `${st.ino}:${st.nlink}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : '-';
    })
    .join(',');
}

/** The root directory's identity: a root renamed away and replaced by a copy is another one. */
export function rootIdentity(root: string): string {
  const st = lstatIfAny(root);
  return st ? `${st.dev}:${st.ino}` : '-';
}

/** The states of the ignore rules no watch sees: the root's `.git/info/exclude`, the `linked` files. */
export function rulesOutsideWatches(root: string, linked: readonly string[]): string {
  return `${excludeState(root)}\0${statesOf(linked)}`;
}
