/**
 * The walker: a depth-first walk in name order (so results come out sorted without a global sort),
 * never following directory symlinks, always skipping `.git`, skipping hidden entries unless asked,
 * and never entering a directory the ignore rules exclude. `planShards` expands the top of a tree
 * breadth-first into independent pieces for the worker pool. Synchronous: it runs inside one worker
 * task (or inline for small trees), where blocking is what we want.
 *
 * Nothing outside the walk root is ever listed or opened, whatever swaps directories meanwhile.
 * A walk whose visitor opens files (`openFiles`: grep, glob's mtimes) holds each directory open: the
 * start directory is opened with O_NOFOLLOW and checked to be exactly its real path, every directory
 * below is opened as the O_NOFOLLOW entry of its parent's descriptor, each is listed through its own
 * descriptor, and each file is handed to the visitor as a path through it (`/proc/<pid>/fd/N/name`),
 * to be opened with O_NOFOLLOW. A checked directory cannot lead out, its entry cannot be a symlink,
 * so neither can the leaf: no check per file, no readlink per directory. A walk that needs names only
 * (glob) in a warm runtime opens nothing it has a listing for (`listDir`: a cached listing is served
 * only for the very directory it was read from through a checked descriptor); in a process that
 * searches once (`searchOnce`, nothing cached) it walks through descriptors as grep does.
 */
import { closeFd, fdPath } from '../core/descriptors.ts';
import { comparePaths } from './compare_paths.ts';
import { type DenySpec, type DenyTest, denyTest } from './denied.ts';
import { DirChain } from './dir_chain.ts';
import { type DirEntry, listDir, listDirIfAny, listingsKept, openListed } from './dircache.ts';
import { globNames, reincluded } from './hidden.ts';
import { type GitUser, IgnoreRules, type IgnoreSource, type Layer } from './ignore.ts';
import { baseOf, underRoot } from './rel_paths.ts';

export interface WalkOptions {
  /** Absolute real path of the search root. */
  root: string;
  /** Apply ignore files (.gitignore, .ignore, .rgignore, .mewcodeignore, excludes: ignore_outer.ts). */
  useIgnore: boolean;
  /** Enter hidden directories and yield hidden files. */
  hidden: boolean;
  /** Deepest level to yield files at (root entries are depth 1). */
  maxDepth: number;
  /** The runtime root: ignore files between it and `root` apply too, and those above it git and rg read. */
  ignoreBase?: string;
  /** Where the user's git config is, for the global excludes file (none read without it). */
  gitUser?: GitUser;
  /** grep's file globs: files they name are searched even when hidden or ignored, as with rg -g (hidden.ts). */
  fileGlobs?: readonly string[];
  /** Paths the policy denies for reading (never listed, never read). */
  deny?: DenySpec;
  /**
   * The visitor opens the files it gets: hand them over as paths through checked descriptors. 'read':
   * it reads every file it gets, so `visitFiles` may hand a file over already open (visit_files.ts).
   */
  openFiles?: boolean | 'read';
  /**
   * Resume at this path: every entry that sorts before it (`comparePaths`) was walked by an earlier run
   * of the same walk, so it is passed over without a word (no skip counted twice). For a walk in
   * sorted order: one directory, or loose files (a shard's piece, shard_pieces.ts), not both.
   */
  from?: string;
}

/** Whether `rel` and everything under it sort before `from`: walked by an earlier run (never the root, ''). */
export const walkedBefore = (rel: string, from: string | undefined): boolean =>
  from !== undefined && rel !== '' && comparePaths(rel, from) < 0 && !from.startsWith(`${rel}/`);

export type SkipReason = IgnoreSource | 'hidden' | 'denied';

export interface Entry {
  /** Path relative to the root, `/`-separated. */
  rel: string;
  kind: 'file' | 'symlink';
}

export interface Visitor {
  /**
   * A file. With `openFiles`, `at` reaches it through its checked directory's descriptor and is valid
   * only during the call: open it with O_NOFOLLOW. With `fd` (openFiles 'read'), the file is open
   * already as exactly that entry, read-only, and `at` is its path: read through `fd`, never close it.
   * True stops the walk.
   */
  file(entry: Entry, at?: string, fd?: number): boolean | undefined;
  skipped?(rel: string, isDir: boolean, reason: SkipReason): void;
  /** A directory the walk entered (listed). */
  dir?(rel: string): void;
  /** A loose file whose directory could not be opened as itself (gone, unreadable, or swapped). */
  unreachable?(entry: Entry): void;
  /** A directory the walk came to but could not list (unreadable, gone, or swapped since it was seen). */
  unlisted?(rel: string): void;
  /** A directory admitted but not entered: past `maxDepth`. */
  deeper?(rel: string): void;
}

/** Walks the given directories (relative to the root, in order). */
export function walk(o: WalkOptions, dirs: readonly string[], visitor: Visitor, rules = IgnoreRules.of(o)): boolean {
  const walkable = dirs.filter((dir) => !walkedBefore(dir, o.from) && !excludedOnTheWay(o, dir, rules, visitor));
  if (!o.openFiles) return walkable.some((dir) => walkDir(o, dir, visitor, rules));
  // Each directory is opened through its parent, reached through the chain of its ancestors.
  const chain = new DirChain(o.root);
  try {
    for (const dir of walkable) {
      const slash = dir.lastIndexOf('/');
      const parentFd = dir === '' ? undefined : chain.open(slash === -1 ? '' : dir.slice(0, slash));
      if (dir !== '' && parentFd === undefined) continue; // its parent is gone or was swapped
      if (walkDir(o, dir, visitor, rules, undefined, parentFd)) return true;
    }
    return false;
  } finally {
    chain.close();
  }
}

/** Reports and answers whether `start` is inside an ignored directory (see `IgnoreRules.ignoredOnTheWay`). */
function excludedOnTheWay(
  o: WalkOptions,
  start: string,
  rules: IgnoreRules,
  visitor: Pick<Visitor, 'skipped'>,
): boolean {
  const hit = o.useIgnore ? rules.ignoredOnTheWay(start) : undefined;
  if (hit) visitor.skipped?.(hit.rel, true, hit.source);
  return hit !== undefined;
}

/** An open directory that its subdirectories still waiting on the stack will be opened through. */
interface Shared {
  fd: number;
  refs: number;
}
const release = (s: Shared | undefined) => {
  if (s && --s.refs === 0) closeFd(s.fd);
};

function walkDir(
  o: WalkOptions,
  start: string,
  visitor: Visitor,
  rules: IgnoreRules,
  denied = denyTest(o.deny, o.ignoreBase ?? o.root, o.root),
  /** The open parent of `start` (borrowed: the caller closes it). */
  parentFd?: number,
): boolean {
  // An explicit stack keeps deep trees off the call stack; entries are pushed in reverse name order,
  // each with its parent directory, held open until the last of them is opened through it.
  const borrowed = parentFd === undefined ? undefined : { fd: parentFd, refs: Number.POSITIVE_INFINITY };
  const stack: { dir: string; depth: number; parent: Shared | undefined }[] = [
    { dir: start, depth: start === '' ? 0 : start.split('/').length, parent: borrowed },
  ];
  // Without kept listings (a one-shot), a names-only walk lists through descriptors as well: opening
  // each directory through its parent's costs less than checking a path (stat, or open + readlink).
  const viaFds = Boolean(o.openFiles) || !listingsKept();
  try {
    while (stack.length > 0) {
      const { dir, depth, parent } = stack.pop() as (typeof stack)[number];
      const abs = underRoot(o.root, dir);
      const name = baseOf(dir);
      const opened = viaFds ? openListed(abs, parent?.fd, name) : listedIfAny(abs);
      release(parent);
      if (!opened) {
        visitor.unlisted?.(dir); // gone, unreadable, or no longer the directory that was listed
        continue;
      }
      const { fd, entries } = opened;
      const subdirs: string[] = [];
      let handedOver = false;
      try {
        visitor.dir?.(dir); // it may throw (a deadline): the directory's descriptor is closed below
        const ignoreStack = o.useIgnore ? rules.stackFor(dir, dotNames(entries)) : [];
        for (const e of entries) {
          if (o.from !== undefined && walkedBefore(dir === '' ? e.name : `${dir}/${e.name}`, o.from)) continue;
          const rel = admit(o, dir, e, ignoreStack, denied, visitor);
          if (rel === undefined) continue;
          if (e.kind === 'dir') {
            if (depth + 1 < o.maxDepth) subdirs.push(rel);
            else visitor.deeper?.(rel);
            continue;
          }
          if (depth + 1 > o.maxDepth) continue;
          if (e.kind !== 'file' && e.kind !== 'symlink') continue; // FIFOs, sockets, devices: never files to read
          const kind = e.kind;
          // Files of this directory come before its subdirectories only where names sort that way:
          // interleave by visiting subdirectories that sort before this file first (through this
          // directory, open meanwhile: one descriptor per level of nesting).
          while (subdirs.length > 0 && (subdirs[0] as string) < rel) {
            if (walkDir(o, subdirs.shift() as string, visitor, rules, denied, fd)) return true;
          }
          if (visitor.file({ rel, kind }, fd === undefined || !o.openFiles ? undefined : fdPath(fd, e.name)))
            return true;
        }
        const shared = fd !== undefined && subdirs.length > 0 ? { fd, refs: subdirs.length } : undefined;
        handedOver = shared !== undefined;
        for (let i = subdirs.length - 1; i >= 0; i--)
          stack.push({ dir: subdirs[i] as string, depth: depth + 1, parent: shared });
      } finally {
        if (fd !== undefined && !handedOver) closeFd(fd);
      }
    }
    return false;
  } finally {
    for (const pending of stack) release(pending.parent); // stopped early: close what the rest held
  }
}

/**
 * The filters the walk and the planner share: `.git` always, hidden entries unless asked, paths the
 * policy denies, and the ignore rules. Answers the entry's path when it passes; reports the skip.
 */
function admit(
  o: WalkOptions,
  dir: string,
  e: DirEntry,
  ignoreStack: readonly Layer[],
  denied: DenyTest | undefined,
  visitor: Pick<Visitor, 'skipped'>,
): string | undefined {
  const rel = dir === '' ? e.name : `${dir}/${e.name}`;
  const isDir = e.kind === 'dir';
  if (isDir && e.name === '.git') return undefined;
  let reason: SkipReason | undefined;
  const named = globNames(o, rel, isDir); // an override, as rg's -g (see hidden.ts)
  if (!o.hidden && e.name.startsWith('.') && !named && !reincluded(o, ignoreStack, rel, isDir)) reason = 'hidden';
  else if (denied?.(rel, isDir)) reason = 'denied';
  else if (o.useIgnore && !named) reason = IgnoreRules.decide(ignoreStack, rel, isDir);
  if (reason === undefined) return rel;
  visitor.skipped?.(rel, isDir, reason);
  return undefined;
}

const NO_NAMES: ReadonlySet<string> = new Set();
/** Names starting with a dot: where ignore files can be (most directories have none: nothing allocated). */
function dotNames(entries: readonly DirEntry[]): ReadonlySet<string> {
  let names: Set<string> | undefined;
  for (const e of entries) {
    if (e.name.charCodeAt(0) !== 46) continue;
    names ??= new Set();
    names.add(e.name);
  }
  return names ?? NO_NAMES;
}

/** A kept listing of `abs` in the shape openListed answers; undefined when it cannot be listed. */
function listedIfAny(abs: string): { fd: undefined; entries: DirEntry[] } | undefined {
  const entries = listDirIfAny(abs);
  return entries ? { fd: undefined, entries } : undefined;
}

export { comparePaths };

export interface ShardPlan {
  /** Files met while planning, in walk order. */
  files: Entry[];
  /** Directories to walk fully, in name order. */
  dirs: string[];
}

/**
 * Expands the tree breadth-first, applying the same filters as the walk, until there are at least
 * `target` directories to hand out or `budget` entries have been listed (this runs on the main
 * thread), or the tree is exhausted — in which case `dirs` is empty and `files` is all of it.
 */
export function planShards(
  o: WalkOptions,
  start: string,
  target: number,
  budget: number,
  visitor: Pick<Visitor, 'skipped' | 'dir'>,
  rules: IgnoreRules,
): ShardPlan {
  const files: Entry[] = [];
  if (excludedOnTheWay(o, start, rules, visitor)) return { files, dirs: [] };
  const denied = denyTest(o.deny, o.ignoreBase ?? o.root, o.root);
  let frontier = [start];
  let seen = 0;
  let unexpanded: string[] = [];
  while (frontier.length > 0 && frontier.length < target && unexpanded.length === 0) {
    const next: string[] = [];
    for (const [i, dir] of frontier.entries()) {
      if (seen > budget) {
        // Out of budget mid-level: the rest of this level goes to the workers as it is.
        unexpanded = frontier.slice(i);
        break;
      }
      const depth = dir === '' ? 0 : dir.split('/').length;
      const entries = listDir(underRoot(o.root, dir));
      visitor.dir?.(dir);
      seen += entries.length;
      const ignoreStack = o.useIgnore ? rules.stackFor(dir, dotNames(entries)) : [];
      for (const e of entries) {
        const rel = admit(o, dir, e, ignoreStack, denied, visitor);
        if (rel === undefined) continue;
        if (e.kind === 'dir') {
          if (depth + 1 < o.maxDepth) next.push(rel);
        } else if (depth + 1 <= o.maxDepth && (e.kind === 'file' || e.kind === 'symlink')) {
          files.push({ rel, kind: e.kind });
        }
      }
    }
    frontier = next;
  }
  return { files, dirs: [...frontier, ...unexpanded].sort(comparePaths) };
}
