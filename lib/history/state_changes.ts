/**
 * What may have changed in a root between two looks at it, as a shell command's journal compares them
 * (shell_after.ts): each entry looked at again, with its state before and after — every entry of two
 * whole walks that differs (`diffStates`), or the entries a live tree looked at again
 * (live_tree.ts), unchanged ones among them. Data only.
 */
import { type EntryState, sameState, type TreeStates } from './tree_states.ts';

export interface Change<T> {
  before: T | undefined;
  after: T | undefined;
}

export interface StateChanges {
  /** Files and symlinks, by path relative to the root. */
  files: Map<string, Change<EntryState>>;
  /** Directories entered ('' is the root): true where one was. */
  dirs: Map<string, Change<true>>;
  /** Ignored entries and unlisted directories, with their own state. */
  ignored: Map<string, Change<EntryState>>;
}

/** The ignored entries and unlisted directories of one look: what nothing under is compared for. */
export interface Excluded {
  ignored: ReadonlyMap<string, EntryState>;
  opaque: ReadonlySet<string>;
}

export const emptyChanges = (): StateChanges => ({ files: new Map(), dirs: new Map(), ignored: new Map() });

/** The entries of two whole walks that differ, and the files of `alsoSame` whatever their states. */
export function diffStates(before: TreeStates, now: TreeStates, alsoSame: ReadonlySet<string>): StateChanges {
  const out = emptyChanges();
  for (const rel of new Set([...before.files.keys(), ...now.files.keys()])) {
    const a = before.files.get(rel);
    const c = now.files.get(rel);
    if (!a || !c || !sameState(a, c) || alsoSame.has(rel)) out.files.set(rel, { before: a, after: c });
  }
  for (const d of before.dirs) if (!now.dirs.has(d)) out.dirs.set(d, { before: true, after: undefined });
  for (const d of now.dirs) if (!before.dirs.has(d)) out.dirs.set(d, { before: undefined, after: true });
  for (const rel of new Set([...before.ignored.keys(), ...now.ignored.keys()])) {
    const a = before.ignored.get(rel);
    const c = now.ignored.get(rel);
    if (!a || !c || !sameState(a, c)) out.ignored.set(rel, { before: a, after: c });
  }
  return out;
}

/** Whether `rel` or a directory above it is an entry excluded (not entered) in `states`. */
export function underIgnored(states: Excluded, rel: string): boolean {
  if (states.ignored.size === 0) return false;
  for (let at = rel.length; at > 0; at = rel.lastIndexOf('/', at - 1))
    if (states.ignored.has(rel.slice(0, at))) return true;
  return false;
}

/** Whether `rel` is `dir` or below it ('' holds everything). */
export const isUnder = (rel: string, dir: string) => dir === '' || rel === dir || rel.startsWith(`${dir}/`);
