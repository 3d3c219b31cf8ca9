/**
 * The state of every entry of a root as a shell command's journal compares it before and after the
 * command: each file and symlink the search walk yields (hidden ones included, `.git` never) with
 * its lstat, each directory it enters, and — for what the ignore files exclude — the state of the
 * excluded entry itself (an ignored directory is not entered: its own stat changes when an entry is
 * added, removed or renamed in it, not when a file inside is rewritten). Entries named in `skipTop`
 * (the protected locations, git's and MewCode's own: read-only to a sandboxed command, and their empty
 * placeholders come and go with sandboxes) are left out. Main thread, synchronous.
 */
import path from 'node:path';
import { lstatBigIfAny } from '../core/lstat_if_any.ts';
import type { GitUser } from '../search/ignore.ts';
import { walk } from '../search/walk.ts';
import { type EntryState, FileStates } from './file_states.ts';

export type { EntryState } from './file_states.ts';

/** How far a walk of the root goes: at most `maxFiles`, the global excludes of `gitUser`, never into `skipTop`. */
export interface TreeScope {
  maxFiles: number;
  gitUser?: GitUser;
  skipTop?: readonly string[];
}

/**
 * A part of the root walked on its own (live_tree.ts): from `start`, at most `depth` levels below
 * the root (a directory deeper is reported to `deeper`, not entered); `entered` hears of each
 * directory as the walk lists it, before any of its files is stat'ed.
 */
export interface WalkPart {
  start: string;
  depth: number;
  /**
   * A file whose state is known to be current (its directory watched, no event named it): true
   * leaves it out of the states (not stat'ed again), the caller having been told of it.
   */
  unchanged?(rel: string): boolean;
  entered?(rel: string): void;
  deeper?(rel: string): void;
}

export interface TreeStates {
  /** Files and symlinks by path relative to the root (`/`-separated). */
  files: FileStates;
  /** Directories entered ('' is the root). */
  dirs: Set<string>;
  /** Entries the ignore files exclude (not entered), with their own state; and the `opaque` directories'. */
  ignored: Map<string, EntryState>;
  /**
   * Directories the walk could not list (unreadable, or gone or swapped while it walked): like an
   * ignored entry, nothing under one is compared, and a change of its own state is named.
   */
  opaque: Set<string>;
  /** The walk stopped at `maxFiles` entries: the states are not the whole root's. */
  cut: boolean;
}

export function stateOf(abs: string): EntryState | undefined {
  const st = lstatBigIfAny(abs); // a parent replaced meanwhile: as gone
  if (!st) return undefined;
  const { ino, size, mtimeNs, ctimeNs } = st;
  return { ino, size, mtimeNs, ctimeNs, mode: Number(st.mode), links: Number(st.nlink) };
}

/** The root's states (or a `part`'s), the walk stopped past `maxFiles` files and ignored entries. */
export function treeStates(root: string, o: TreeScope, part?: WalkPart): TreeStates {
  const { gitUser } = o;
  const skip = new Set(o.skipTop ?? []);
  const skipped = (rel: string) => skip.size > 0 && skip.has(rel.split('/', 1)[0] as string);
  const out: TreeStates = {
    files: new FileStates(),
    dirs: new Set(),
    ignored: new Map(),
    opaque: new Set(),
    cut: false,
  };
  const abs = (rel: string) => path.join(root, rel);
  const full = () => {
    out.cut = out.files.size + out.ignored.size > o.maxFiles;
    return out.cut;
  };
  walk(
    {
      root,
      useIgnore: true,
      hidden: true,
      maxDepth: part?.depth ?? Number.POSITIVE_INFINITY,
      ignoreBase: root,
      ...(gitUser ? { gitUser } : {}),
    },
    [part?.start ?? ''],
    {
      file(e) {
        if (skipped(e.rel)) return undefined;
        if (part?.unchanged?.(e.rel)) return undefined;
        const st = stateOf(abs(e.rel));
        if (st) out.files.set(e.rel, st);
        return full();
      },
      dir(rel) {
        if (skipped(rel)) return;
        out.dirs.add(rel);
        part?.entered?.(rel);
      },
      deeper(rel) {
        if (!skipped(rel)) part?.deeper?.(rel);
      },
      skipped(rel, _isDir, reason) {
        if (reason === 'hidden' || reason === 'denied' || skipped(rel)) return;
        const st = stateOf(abs(rel));
        if (st) out.ignored.set(rel, st);
        full(); // the walk stops at its next file
      },
      unlisted(rel) {
        if (skipped(rel)) return;
        out.opaque.add(rel);
        const st = stateOf(abs(rel));
        if (st) out.ignored.set(rel, st);
      },
    },
  );
  return out;
}

export const sameState = (a: EntryState, b: EntryState) =>
  a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs && a.mode === b.mode;

export const isRegular = (s: EntryState) => (s.mode & 0o170000) === 0o100000;
