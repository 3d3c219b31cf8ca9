/**
 * What a shell command's journal takes before the command runs: the state of every entry of the root,
 * and for each file a way to its bytes should the command change it — the blob of a file git calls
 * clean (nothing copied; its id looked up only for a file that changed), else a copy in memory
 * (kept_copies.ts). A file with neither is named if the command changes it (shell_after.ts).
 *
 * A runtime keeps the root's states between its commands (live_tree.ts: watches tell what changed),
 * and its copies; where the system refuses the watches, the root is walked whole before and after
 * each command instead. Main thread.
 */
import path from 'node:path';
import { CheckedDirs } from './checked_dirs.ts';
import { cleanFor } from './git_index.ts';
import { findRepo, type GitIndexState, type GitRepo, mayFilter, readIndex } from './git_repo.ts';
import { KeptCopies, type Wanted } from './kept_copies.ts';
import { LiveTree } from './live_tree.ts';
import type { Excluded, StateChanges } from './state_changes.ts';
import { type EntryState, isRegular, type TreeScope, type TreeStates, treeStates } from './tree_states.ts';

/**
 * A file whose ctime is this close to the snapshot may be changed again within the same clock tick
 * (coarse file-system timestamps), leaving its stat as it was: its bytes are copied and compared.
 */
export const RACY_NS = 50_000_000n;
/**
 * Without watches (the system refused them), the root is walked whole before and after each command:
 * at most this many files (~0.3–0.5 s of each command here, docs/undo.md "Cost").
 */
export const WALK_MAX_FILES = 10_000;

/** How many files a command's journal compares: fewer once the root is walked whole each time. */
export const shellLimit = (maxFiles: number, kept: ShellKept) =>
  kept.walkOnly ? Math.min(maxFiles, WALK_MAX_FILES) : maxFiles;

/** What a runtime keeps of its root between commands. */
export interface ShellKept {
  /** The live states, once a command started them. */
  live: LiveTree | undefined;
  /** The system refused the watches: the root is walked whole around each command. */
  walkOnly?: boolean;
  copies: KeptCopies;
  /** The git index the copies were chosen against: another one may call other files clean. */
  index?: GitIndexState;
}

export interface ShellBefore {
  root: string;
  scope: TreeScope;
  /** Ignored entries and unlisted directories before the command. */
  excluded: Excluded;
  /** The live states, compared after the command by what the watches saw. */
  live?: LiveTree;
  /** Without a live tree: the whole root's states, compared with a whole walk after the command. */
  states?: TreeStates;
  copies: KeptCopies;
  /** Files whose stat alone cannot show a change (changed within the snapshot's clock tick). */
  racy: Set<string>;
  repo?: GitRepo;
  /** The git index before the command, and the root's path in its repository. */
  index?: GitIndexState;
  prefix: string;
  /**
   * Milliseconds the command must wait before it starts: recently changed files that could not be
   * copied are then older than any change the command can make (their stat tells).
   */
  waitMs: number;
}

/** The states and ways to the bytes before a command; undefined when the root has more than `maxFiles` files. */
export async function beforeCommand(root: string, scope: TreeScope, kept: ShellKept): Promise<ShellBefore | undefined> {
  const racyFrom = BigInt(Date.now()) * 1_000_000n - RACY_NS;
  const looked = await lookNow(root, scope, kept);
  if (!looked) return undefined;
  const { states, changes } = looked;
  const repo = findRepo(root);
  // A repository that may filter what it stores gives no blobs to trust (git_repo.ts mayFilter).
  const index = repo && !mayFilter(repo) ? readIndex(repo) : undefined;
  const b: ShellBefore = {
    root,
    scope: { ...scope, maxFiles: shellLimit(scope.maxFiles, kept) },
    excluded: { ignored: new Map(states.ignored), opaque: new Set(states.opaque) },
    copies: kept.copies,
    racy: new Set(),
    prefix: repo ? path.relative(repo.top, root).split(path.sep).join('/') : '',
    waitMs: 0,
    ...(kept.live ? { live: kept.live } : { states }),
    ...(repo ? { repo } : {}),
    ...(index ? { index } : {}),
  };
  const recent = kept.live && changes ? kept.live.recentFiles() : states.files.keys();
  for (const rel of recent) if ((states.files.get(rel)?.ctimeNs ?? 0n) >= racyFrom) b.racy.add(rel);
  // Every file is a candidate for a copy on a whole walk or against another git index; else only
  // those changed since the last command (the others were chosen, or not, then).
  const all = !changes || index !== kept.index;
  const lookedAt = kept.live?.takeLookedAt() ?? [];
  if (changes) kept.copies.forget(lookedAt, states.files);
  if (all) kept.copies.clear();
  kept.index = index;
  const wanted: Wanted[] = [];
  const consider = (rel: string, st: EntryState | undefined) => {
    if (st && isRegular(st) && (b.racy.has(rel) || !blobOf(b, rel, st)))
      wanted.push({ rel, st, racy: b.racy.has(rel) });
  };
  if (all) for (const [rel, st] of states.files) consider(rel, st);
  else for (const rel of new Set([...lookedAt, ...b.racy])) consider(rel, states.files.get(rel));
  const dirs = new CheckedDirs(root);
  try {
    const uncopied = kept.copies.take(root, wanted, dirs);
    for (const w of wanted) if (w.racy && !kept.copies.get(w.rel, w.st)) b.racy.delete(w.rel);
    b.waitMs = uncopied === 0n ? 0 : Math.max(0, Number((uncopied + RACY_NS) / 1_000_000n) + 1 - Date.now());
  } finally {
    dirs.close();
  }
  return b;
}

/**
 * The root's states now: refreshed from the live tree (with what changed since the last look), or
 * walked whole when there is none (a first command starts one). Undefined when over the limit.
 */
async function lookNow(
  root: string,
  scope: TreeScope,
  kept: ShellKept,
): Promise<{ states: TreeStates; changes?: StateChanges } | undefined> {
  if (kept.live) {
    const changes = await kept.live.refresh();
    if (changes === 'cut') {
      kept.live.close(); // the runtime stops looking (ShellSeen.overSince)
      kept.live = undefined;
      return undefined;
    }
    if (changes !== 'unwatched') return { states: kept.live.states, changes };
    kept.live.close();
    kept.live = undefined;
    kept.walkOnly = true;
  } else if (!kept.walkOnly) {
    const live = LiveTree.start(root, scope);
    if (live === 'cut') return undefined;
    if (live !== 'unwatched') {
      kept.live = live;
      return { states: live.states };
    }
    kept.walkOnly = true;
  }
  const states = treeStates(root, { ...scope, maxFiles: shellLimit(scope.maxFiles, kept) });
  return states.cut ? undefined : { states };
}

/** The blob git holds of `rel` in the state `st`, if git calls it clean (never for a racy file). */
export function blobOf(b: ShellBefore, rel: string, st: EntryState): string | undefined {
  if (!b.index || b.racy.has(rel)) return undefined;
  const e = b.index.entries.get(b.prefix ? `${b.prefix}/${rel}` : rel);
  return e && cleanFor(e, st, b.index.mtimeNs) ? e.oid : undefined;
}

/** A runtime's first keep: nothing yet. */
export const newShellKept = (): ShellKept => ({ live: undefined, copies: new KeptCopies() });
