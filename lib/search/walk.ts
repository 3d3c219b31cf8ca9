/**
 * The walker: a depth-first walk in name order (so results come out sorted without a global sort),
 * never following directory symlinks, always skipping `.git`, skipping hidden entries unless asked,
 * and never entering a directory the ignore rules exclude. `planShards` expands the top of a tree
 * breadth-first into independent pieces for the worker pool. Synchronous: it runs inside one worker
 * task (or inline for small trees), where blocking is what we want.
 */
import path from 'node:path';
import { type DenySpec, type DenyTest, denyTest } from './denied.ts';
import { type DirEntry, listDir } from './dircache.ts';
import { IgnoreRules, type IgnoreSource, type Layer } from './ignore.ts';

export interface WalkOptions {
  /** Absolute real path of the search root. */
  root: string;
  /** Apply .gitignore / .ignore / .mewcodeignore. */
  useIgnore: boolean;
  /** Enter hidden directories and yield hidden files. */
  hidden: boolean;
  /** Deepest level to yield files at (root entries are depth 1). */
  maxDepth: number;
  /** The runtime root: ignore files between it and `root` apply too. */
  ignoreBase?: string;
  /** Paths the policy denies for reading (never listed, never read). */
  deny?: DenySpec;
}

export type SkipReason = IgnoreSource | 'hidden' | 'denied';

export interface Entry {
  /** Path relative to the root, `/`-separated. */
  rel: string;
  kind: 'file' | 'symlink';
}

export interface Visitor {
  file(entry: Entry): boolean | undefined; // true stops the walk
  skipped?(rel: string, isDir: boolean, reason: SkipReason): void;
}

/** Walks the given directories (relative to the root, in order) and the given loose files. */
export function walk(
  o: WalkOptions,
  dirs: readonly string[],
  visitor: Visitor,
  rules = new IgnoreRules(o.root, o.ignoreBase),
): boolean {
  for (const dir of dirs) if (walkDir(o, dir, visitor, rules)) return true;
  return false;
}

function walkDir(
  o: WalkOptions,
  start: string,
  visitor: Visitor,
  rules: IgnoreRules,
  denied = denyTest(o.deny, o.ignoreBase ?? o.root, o.root),
): boolean {
  // An explicit stack keeps deep trees off the call stack; entries are pushed in reverse name order.
  const stack: string[] = [start];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    const depth = dir === '' ? 0 : dir.split('/').length;
    const entries = readEntries(o.root, dir);
    const ignoreStack = o.useIgnore ? rules.stackFor(dir, dotNames(entries)) : [];
    const subdirs: string[] = [];
    for (const e of entries) {
      const rel = admit(o, dir, e, ignoreStack, denied, visitor);
      if (rel === undefined) continue;
      if (e.kind === 'dir') {
        if (depth + 1 < o.maxDepth) subdirs.push(rel);
        continue;
      }
      if (depth + 1 > o.maxDepth) continue;
      if (e.kind !== 'file' && e.kind !== 'symlink') continue; // FIFOs, sockets, devices: never files to read
      const kind = e.kind;
      // Files of this directory come before its subdirectories only where names sort that way:
      // interleave by visiting subdirectories that sort before this file first.
      while (subdirs.length > 0 && (subdirs[0] as string) < rel) {
        if (walkDir(o, subdirs.shift() as string, visitor, rules, denied)) return true;
      }
      if (visitor.file({ rel, kind })) return true;
    }
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i] as string);
  }
  return false;
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
  if (!o.hidden && e.name.startsWith('.')) reason = 'hidden';
  else if (denied?.(rel, isDir)) reason = 'denied';
  else if (o.useIgnore) reason = IgnoreRules.decide(ignoreStack, rel, isDir);
  if (reason === undefined) return rel;
  visitor.skipped?.(rel, isDir, reason);
  return undefined;
}

/** Names starting with a dot: where ignore files can be. */
function dotNames(entries: readonly DirEntry[]): Set<string> {
  const names = new Set<string>();
  for (const e of entries) if (e.name.charCodeAt(0) === 46) names.add(e.name);
  return names;
}

function readEntries(root: string, dir: string): DirEntry[] {
  return listDir(dir === '' ? root : path.join(root, dir));
}

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
  visitor: Pick<Visitor, 'skipped'>,
  rules: IgnoreRules,
): ShardPlan {
  const files: Entry[] = [];
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
      const entries = readEntries(o.root, dir);
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

/** Orders paths the way a name-ordered walk visits them: component by component. */
export function comparePaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x === 47) return -1; // '/' ends a component: the shorter name sorts first
    if (y === 47) return 1;
    return x - y;
  }
  return a.length - b.length;
}
