/**
 * Shard tasks: one piece of a glob or grep (a few directories walked fully, or a list of loose files),
 * as plain data so it runs the same inline or in a worker. Each shard yields its results in path
 * order and stops once it has `maxResults`, which keeps a head-limited search cheap and its merge exact:
 * the global first N are always among the shards' first N.
 */
import { lstatSync } from 'node:fs';
import { compileFileFilter, type FileFilterSpec } from './file_types.ts';
import { IgnoreRules } from './ignore.ts';
import { type GrepPrefilter, skipperOf } from './index/skip.ts';
import { ListingWriter, type ShardListing } from './listing.ts';
import { compileGlob } from './matcher.ts';
import { compilePattern } from './pattern.ts';
import { type Line, type SearchOptions, searchFile } from './search.ts';
import { visitFiles } from './visit_files.ts';
import { comparePaths, type Entry, type SkipReason, type Visitor, type WalkOptions, walk } from './walk.ts';

export interface SkipCount {
  dirs: number;
  files: number;
}
export type SkipCounts = Partial<Record<SkipReason, SkipCount>>;

interface ShardBase {
  root: string;
  walk: WalkOptions;
  dirs: string[];
  files: Entry[];
  maxResults: number;
  /**
   * The call's deadline (a `Date.now()` time), checked between files. On the main thread it is the
   * only deadline there is (nothing can interrupt a synchronous walk), so an inline search stops at it
   * like a worker's; in a worker it lets the task stop itself before the pool has to kill the thread.
   */
  stopAt?: number | undefined;
  /**
   * Set to 1 by the worker that ran the shard as it answers (one Int32 on shared memory): the main
   * thread, running pieces of another shard as a lane of its own, ends its slice then, so that the
   * worker's answer is taken and its next shard given without waiting out the slice
   * (lib/lanes/this_thread_lane.ts). Unset on shards the main thread does not share a search with.
   */
  answered?: Int32Array | undefined;
  /**
   * When the shard pauses (this thread's lane, a slice at a time): past it, before its next file once
   * it has visited one, it stops there and answers that file's path as `pausedAt`, to be run again
   * from there (`walk.from`) and the results joined (shard_pieces.ts).
   */
  yieldAt?: number | undefined;
  /**
   * With `yieldAt`: the shard also pauses once any of these reads 1 (the `answered` flags of the
   * shards this thread shares a search with), so a worker that has answered gets its next shard
   * without waiting for the slice's end, even from inside a directory with a large tree.
   */
  yieldOn?: Int32Array | undefined;
}

/**
 * Where a shard run with `yieldAt` pauses: before a file or a directory it comes to (true), once it
 * has made progress past `walk.from` (a file visited or a directory entered). Directories count: a
 * long stretch of them without a file (empty, or every file ignored) would otherwise run on to the
 * watchdog, whose stop can land inside an open and leave its descriptor untracked. It never pauses
 * at the ancestors of `from`, listed again by a resumed walk, nor between entries that read as one
 * path (two names not UTF-8 that decode alike): each run gets past where the last paused, and a
 * resumed walk does not meet again what was visited.
 */
function pauser(t: ShardBase, clockEvery: number): (rel: string) => boolean {
  const { yieldAt, yieldOn } = t;
  if (yieldAt === undefined) return () => false;
  const from = t.walk.from;
  let progress = 0;
  let last = from;
  // The clock is read every `clockEvery` entries: a names-only walk meets an entry in ~1 µs, and
  // reading the time at each took ~10% of a whole-tree glob in pieces.
  let sinceClock = 0;
  const due = () => {
    if (yieldOn !== undefined && anyRaised(yieldOn)) return true;
    if (++sinceClock < clockEvery) return false;
    sinceClock = 0;
    return Date.now() >= yieldAt;
  };
  return (rel) => {
    if (from !== undefined && comparePaths(rel, from) < 0) return false;
    if (progress > 0 && rel !== last && due()) return true;
    progress++;
    last = rel;
    return false;
  };
}

/** Whether any of `flags` (each an Int32 on shared memory) reads 1. */
export function anyRaised(flags: Int32Array): boolean {
  for (let i = 0; i < flags.length; i++) if (Atomics.load(flags, i) === 1) return true;
  return false;
}

/**
 * Entries a glob's names-only walk meets between two readings of the clock (see `pauser`); a grep
 * reads it before each file, as reading a file costs far more, and 16 large ones could outrun the
 * watchdog's grace past the slice.
 */
const NAMES_PER_CLOCK = 16;

/** Thrown by a visitor that pauses before a directory: the walk ends there, the shard answers `pausedAt`. */
const PAUSED = new Error('the shard paused');

/** The message a shard stops with at its deadline; the runners report it as a timeout. */
export const SHARD_DEADLINE = 'the search reached its deadline';

function checkDeadline(t: ShardBase): void {
  if (t.stopAt !== undefined && Date.now() >= t.stopAt) throw new Error(SHARD_DEADLINE);
}

interface GlobShard extends ShardBase {
  kind: 'glob';
  pattern: string;
  /** Let `*` match a leading dot (include_ignored lists hidden files too). */
  dot: boolean;
  withMtime: boolean;
}

/** What every shard reports besides its results: how much of the tree it walked. */
interface ShardStats {
  /** Files the walk yielded (after ignore and hidden filters). */
  visited: number;
  /** The shard stopped at maxResults before walking everything. */
  stopped: boolean;
}

/** What every shard may answer about where it paused (see `yieldAt`). */
interface Paused {
  /** The path it paused before: walked from there, the shard goes on where it stopped. */
  pausedAt?: string;
}

export interface GlobShardResult extends ShardStats, Paused {
  paths: string[];
  mtimes: number[];
  skipped: SkipCounts;
}

export type GrepMode = 'content' | 'files_with_matches' | 'count';

export interface GrepShard extends ShardBase {
  kind: 'grep';
  pattern: string;
  ignoreCase: boolean;
  fixedStrings: boolean;
  multiline: boolean;
  before: number;
  after: number;
  mode: GrepMode;
  /** Which files to search: ripgrep's --glob (repeatable, `!` negates) and --type (file_types.ts). */
  filter?: FileFilterSpec;
  /** Line options of the searcher (search.ts): -v, -o, -m. */
  invert?: boolean;
  onlyMatching?: boolean;
  /** Say where each matching line matched (a caller printing data: colour, JSON); `groups`: and each match's groups (-r). */
  spans?: boolean | 'groups';
  maxCount?: number;
  /**
   * Search files with a NUL byte as text (ripgrep -a). The index needs nothing for it: it never holds
   * a binary file, so it never rules one out (index/build_shard.ts).
   */
  binaryAsText?: boolean;
  /** Files the n-gram index rules out are not read (lib/search/index). */
  prefilter?: GrepPrefilter;
  /**
   * The index learns this walk (summary.ts): past maxResults the shard reads no more files but walks
   * on, listing what the index does not hold, so that the next search needs no walk at all — until
   * this time (a `Date.now()` one, well before stopAt), past which it stops as any walk stops at its
   * results: what it would teach is never worth its answer.
   */
  learnUntil?: number;
}

export interface GrepFileResult {
  rel: string;
  lines: Line[];
  matches: number;
}

export interface GrepShardResult extends ShardStats, Paused {
  /** Content mode: the files with matches and their lines. */
  files: GrepFileResult[];
  /**
   * The other modes: the files with matches in path order, as NUL-separated bytes, and their match
   * counts (count mode): a whole-tree listing crosses threads as two values, not an object per file
   * (lib/search/listing.ts writes and merges them).
   */
  listed?: ShardListing;
  binary: number;
  unreadable: { rel: string; error: string }[];
  skipped: SkipCounts;
  /** Results held (output lines in content mode, files otherwise). */
  results: number;
  /** Files the filters let through to be searched (those the index rules out included). */
  searched?: number;
  /** The first binary file that may match, and where its first NUL byte is (rg names it for a file given). */
  firstBinary?: { rel: string; offset: number };
  /** With a prefilter: the files walked that the index does not hold, and how many it does hold. */
  unindexed?: string[];
  indexedSeen?: number;
  /** A walk the index learns reached `learnUntil` before its end (and stopped). */
  outOfTime?: boolean;
}

export type ShardTask = GlobShard | GrepShard;
export type ShardResult = GlobShardResult | GrepShardResult;

function counter() {
  const skipped: SkipCounts = {};
  return {
    skipped,
    add(reason: SkipReason, isDir: boolean) {
      const c = skipped[reason] ?? { dirs: 0, files: 0 };
      if (isDir) c.dirs++;
      else c.files++;
      skipped[reason] = c;
    },
  };
}

export function runGlobShard(t: GlobShard, session: ShardSession = {}): GlobShardResult {
  session.glob ??= globMatchers(t);
  const { match, wouldMatch } = session.glob;
  const paths: string[] = [];
  const mtimes: number[] = [];
  const count = counter();
  let visited = 0;
  let stopped = false;
  let pausedAt: string | undefined;
  const pause = pauser(t, NAMES_PER_CLOCK);
  const visitor: Visitor = {
    file(e, at) {
      checkDeadline(t);
      if (pause(e.rel)) {
        pausedAt = e.rel;
        return true;
      }
      visited++;
      if (match(e.rel)) {
        paths.push(e.rel);
        if (t.withMtime) mtimes.push(at === undefined ? 0 : mtimeOf(at)); // through the checked directory
      }
      stopped = paths.length >= t.maxResults;
      return stopped;
    },
    skipped: (rel, isDir, reason) => {
      checkDeadline(t); // a tree of skipped entries is walked too
      if ((isDir || wouldMatch(rel)) && firstReport(session, rel)) count.add(reason, isDir);
    },
    dir: (rel) => {
      if (!pause(rel)) return;
      pausedAt = rel;
      throw PAUSED;
    },
  };
  const files = [...t.files].sort((a, b) => comparePaths(a.rel, b.rel));
  const o = { ...t.walk, openFiles: t.withMtime }; // names only, unless the mtimes are wanted
  try {
    if (!visitFiles(o, files, visitor)) walk(o, t.dirs, visitor, rulesOf(t, session));
  } catch (e) {
    if (e !== PAUSED) throw e;
  }
  return { paths, mtimes, skipped: count.skipped, visited, stopped, ...(pausedAt !== undefined ? { pausedAt } : {}) };
}

/** The mtime of the entry at `at` (never followed: a symlink's own). */
function mtimeOf(at: string): number {
  try {
    return lstatSync(at).mtimeMs;
  } catch {
    return 0;
  }
}

export function runGrepShard(t: GrepShard, session: ShardSession = {}): GrepShardResult {
  const filter = t.filter ? compileFileFilter(t.filter) : undefined;
  const out: GrepShardResult = {
    files: [],
    binary: 0,
    unreadable: [],
    skipped: {},
    results: 0,
    searched: 0,
    visited: 0,
    stopped: false,
  };
  const count = counter();
  const listing = t.mode === 'content' ? undefined : new ListingWriter(t.mode === 'count');
  const skip = skipperOf(t.prefilter);
  if (skip) out.unindexed = [];
  const options = searchOptionsOf(t);
  // Before each entry: the deadline or, past the results (where only a walk the index learns goes),
  // learnUntil — checked on every file, skipped entry and directory, so no stretch without files
  // (empty or ignored directories) carries a learning walk past it.
  const pause = pauser(t, 1);
  const tick = () => {
    if (out.results < t.maxResults) checkDeadline(t);
    else if (Date.now() >= (t.learnUntil ?? 0)) throw LEARNED_ENOUGH;
  };
  const visit = (e: Entry, at?: string, fd?: number): boolean => {
    tick();
    if (pause(e.rel)) {
      out.pausedAt = e.rel;
      return true;
    }
    const learning = out.results >= t.maxResults;
    out.visited++;
    if (e.kind !== 'file' || at === undefined) return false; // symlinks are not followed, as in ripgrep
    if (skip && out.unindexed) {
      if (skip.indexed(e.rel)) out.indexedSeen = (out.indexedSeen ?? 0) + 1;
      else out.unindexed.push(e.rel);
    }
    if (learning) return false;
    if (filter && !filter(e.rel)) return false;
    out.searched = (out.searched ?? 0) + 1;
    if (skip?.skip(e.rel, at, fd)) return false;
    // One options object for the shard; only content mode's line budget changes from file to file.
    if (t.mode === 'content') options.maxLines = t.maxResults - out.results;
    const r = searchFile(at, options, fd);
    if (r.kind === 'binary') {
      out.binary++;
      out.firstBinary ??= { rel: e.rel, offset: r.offset };
    } else if (r.kind === 'unreadable') out.unreadable.push({ rel: e.rel, error: r.error });
    else if (r.matches > 0) {
      if (t.mode === 'content') out.files.push({ rel: e.rel, lines: r.lines, matches: r.matches });
      else listing?.add(e.rel, r.matches);
      out.results += t.mode === 'content' ? r.lines.length : 1;
    }
    out.stopped = out.results >= t.maxResults && t.learnUntil === undefined;
    return out.stopped;
  };
  const visitor: Visitor = {
    file: visit,
    skipped: (rel, isDir, reason) => {
      tick();
      if (firstReport(session, rel)) count.add(reason, isDir);
    },
    dir: (rel) => {
      tick();
      if (!pause(rel)) return;
      out.pausedAt = rel;
      throw PAUSED;
    },
    unreachable: (e) => out.unreadable.push({ rel: e.rel, error: UNREACHABLE }),
  };
  if (walkShard(t, visitor, session)) {
    out.stopped = true;
    if (t.learnUntil !== undefined) out.outOfTime = true;
  }
  out.skipped = count.skipped;
  if (listing) out.listed = listing.done();
  return out;
}

/** The options every file of grep shard `t` is searched with (its pattern compiled, or kept compiled). */
function searchOptionsOf(t: GrepShard): SearchOptions {
  const pattern = compilePattern(t.pattern, {
    ignoreCase: t.ignoreCase,
    fixedStrings: t.fixedStrings,
    multiline: t.multiline,
  });
  if (!pattern.ok) throw new Error(pattern.error);
  return {
    spec: pattern.value.spec,
    multiline: t.multiline,
    before: t.before,
    after: t.after,
    firstOnly: t.mode === 'files_with_matches',
    namesOnly: t.mode === 'files_with_matches',
    maxLines: Number.POSITIVE_INFINITY,
    countOnly: t.mode === 'count',
    invert: t.invert ?? false,
    onlyMatching: t.onlyMatching ?? false,
    ...(t.spans ? { spans: true } : {}),
    ...(t.spans === 'groups' ? { captures: true } : {}),
    ...(t.binaryAsText ? { binaryAsText: true } : {}),
    maxCount: t.maxCount ?? Number.POSITIVE_INFINITY,
  };
}

/** Thrown by a learning walk's visitor at learnUntil: the walk ends there, as stopped. */
const LEARNED_ENOUGH = new Error('the walk the index learns ran out of time');

/** Walks the shard's loose files, then its directories; true when a learning walk ran out of time. */
function walkShard(t: GrepShard, visitor: Visitor, session: ShardSession): boolean {
  const files = [...t.files].sort((a, b) => comparePaths(a.rel, b.rel));
  const o = { ...t.walk, openFiles: 'read' as const };
  try {
    if (!visitFiles(o, files, visitor)) walk(o, t.dirs, visitor, rulesOf(t, session));
    return false;
  } catch (e) {
    if (e === LEARNED_ENOUGH) return true;
    if (e === PAUSED) return false; // `pausedAt` says where
    throw e;
  }
}

/**
 * A grep task as the main thread runs it: a walk there blocks every other call and nothing but its
 * own checks can stop it, so it learns the tree only when the tree is known to be small
 * (`knownSmall`), and for INLINE_LEARN_MS at most — a tree of few files and very many directories
 * counts as small. Otherwise it stops at its results, as a walk not learned.
 */
export function inlineLearning(t: ShardTask, knownSmall: boolean): ShardTask {
  if (t.kind !== 'grep' || t.learnUntil === undefined) return t;
  const { learnUntil, ...rest } = t;
  return knownSmall ? { ...rest, learnUntil: Math.min(learnUntil, Date.now() + INLINE_LEARN_MS) } : rest;
}

/** How long the main thread may walk past a search's results for the index. */
const INLINE_LEARN_MS = 50;

/** Why a file listed earlier was not read: its directory could not be opened as itself any more. */
const UNREACHABLE = 'its directory is gone or was replaced since it was listed';

/**
 * What the pieces of one shard, run one after another on one thread, set up once and share
 * (shard_pieces.ts): the walk root's ignore rules (with the stacks of the directories asked about,
 * each a stat of every ignore file up its chain) and a glob's matchers. Set up afresh per piece, they
 * made a whole-tree glob in 1,194 pieces 2.3× as long as in one. Never shared between shards: the
 * rules are read when the shard runs.
 */
export interface ShardSession {
  rules?: IgnoreRules;
  /**
   * The entries a piece paused and resumed (`yieldAt`, `walk.from`) has reported skipped so far: a
   * resumed walk lists the directories it is inside again, and the entries of theirs that the walk
   * had already passed (reported as a directory is listed, not in path order) are counted once. Set
   * afresh by the lane as each piece begins.
   */
  skipsSeen?: Set<string>;
  glob?: { match: (rel: string) => boolean; wouldMatch: (rel: string) => boolean };
}

export function runShard(t: ShardTask, session: ShardSession = {}): ShardResult {
  return t.kind === 'glob' ? runGlobShard(t, session) : runGrepShard(t, session);
}

/** Whether `rel` is reported skipped for the first time in `session`'s piece (always, outside one). */
function firstReport(session: ShardSession, rel: string): boolean {
  const seen = session.skipsSeen;
  if (seen === undefined) return true;
  if (seen.has(rel)) return false;
  seen.add(rel);
  return true;
}

/** The walk root's ignore rules for `t`, made once per session. */
const rulesOf = (t: ShardTask, session: ShardSession) =>
  (session.rules ??= IgnoreRules.of({ ...t.walk, root: t.root }));

function globMatchers(t: GlobShard): NonNullable<ShardSession['glob']> {
  const matcher = compileGlob(t.pattern, { dot: t.dot });
  const counting = compileGlob(t.pattern, { dot: true });
  if (!matcher.ok || !counting.ok) throw new Error('invalid glob'); // validated before dispatch: a bug if it fails here
  return { match: matcher.value.match, wouldMatch: counting.value.match };
}
