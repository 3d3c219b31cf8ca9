/**
 * What a warm runtime checks once when it starts using an index, after its watches opened
 * (background_check.ts): whether a directory changed since the build began (it may hold a directory
 * the build never met) or an ignore rule did; which indexed files are no longer as indexed is the
 * pool's part (states_shard.ts). And the states that tell a replaced root or an unwatched rule
 * change later. Main thread.
 */
import type { Stats } from 'node:fs';
import path from 'node:path';
import { lstatIfAny, statIfAny } from '../../core/lstat_if_any.ts';
import { RACY_MS } from '../dircache.ts';
import { type GitUser, IGNORE_FILES } from '../ignore.ts';
import { outsideRules } from '../ignore_outer.ts';
import type { LoadedIndex } from './store.ts';

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
 * them, or a rule file outside the tree (`outside`: absolute, ignore_outer.ts; a symlink and its
 * target), changed at or after `since` (ms) — before the watches began, so unseen.
 */
function ignoreFileStates(
  root: string,
  files: Iterable<string>,
  outside: readonly string[],
  since: number,
  dirsAsBuilt: boolean,
): { linked: string[]; changedSince: boolean } {
  const linked: string[] = [];
  const recent = (st: { mtimeMs: number; ctimeMs: number } | undefined) =>
    st !== undefined && (st.mtimeMs >= since || st.ctimeMs >= since);
  let changedSince = outside.some((f) => {
    const st = lstatIfAny(f);
    // A directory among them (a `.git`) changes times with every git command; its identity is what counts.
    if (dirsAsBuilt && st?.isDirectory()) return false;
    return recent(st) || recent(statIfAny(f));
  });
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
 * directory's times change); `linked`: the ignore files with another hard link; `outside`: the paths
 * of the rules from outside the tree (ignore_outer.ts `inputs`: parents' ignore files, `.git`
 * pointers, `info/exclude`, git config, the global excludes file), which no watch sees. `unseen`: the
 * directories of `dirs` not watched all through the build (the others' changes came as events).
 */
export function rulesAtStart(
  root: string,
  idx: LoadedIndex,
  dirs: ReadonlySet<string>,
  unseen: ReadonlySet<string> = dirs,
  gitUser?: GitUser,
): { unwatched: boolean; linked: string[]; outside: string[] } {
  const since = idx.builtAt - RACY_MS;
  const dirsChanged = dirChangedSince(root, unseen, since);
  // An unchanged directory holds the ignore files its listing showed in the build, and no other.
  const files = dirsChanged ? ignoreFilesIn(dirs, IGNORE_FILES) : idx.ignoreFiles;
  const outside = outsideRules(root, gitUser).inputs;
  const dirsAsBuilt = idx.outsideDirs !== undefined && idx.outsideDirs === outsideDirs(outside);
  const ignores = ignoreFileStates(root, files, outside, since, dirsAsBuilt);
  return { unwatched: dirsChanged || ignores.changedSince, linked: ignores.linked, outside };
}

const stateOf = (st: Stats | undefined) => (st ? `${st.ino}:${st.nlink}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : '-');

/**
 * The files' inode, size, mtime and ctime, as one string; `follow`: a symlink's target's too. A
 * directory (a `.git`: what the rules read inside it are inputs of their own) by its identity alone:
 * git writes in it at every command, which would read as a rule change.
 */
function statesOf(files: readonly string[], follow = false): string {
  return files
    .map((f) => {
      const st = lstatIfAny(f);
      if (st?.isDirectory()) return `d${st.dev}:${st.ino}`;
      return stateOf(st) + (follow ? `>${stateOf(statIfAny(f))}` : '');
    })
    .join(',');
}

/** The rule inputs outside the tree that are directories, by identity: what a build records (store.ts). */
export function outsideDirs(outside: readonly string[]): string {
  return outside
    .flatMap((f) => {
      const st = lstatIfAny(f);
      return st?.isDirectory() ? [`${f}=${st.dev}:${st.ino}`] : [];
    })
    .join('\n');
}

/** The root directory's identity: a root renamed away and replaced by a copy is another one. */
export function rootIdentity(root: string): string {
  const st = lstatIfAny(root);
  return st ? `${st.dev}:${st.ino}` : '-';
}

/**
 * The states of the ignore rules no watch sees: the rule files outside the tree and what says where
 * they are (`outside`, from `rulesAtStart`: a symlink's target's state too), the `linked` files.
 */
export function rulesOutsideWatches(outside: readonly string[], linked: readonly string[]): string {
  return `${statesOf(outside, true)}\0${statesOf(linked)}`;
}
