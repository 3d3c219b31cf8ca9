/**
 * Shard tasks: one piece of a glob or grep (a few directories walked fully, or a list of loose files),
 * as plain data so it runs the same inline or in a worker. Each shard yields its results in path
 * order and stops once it has `maxResults`, which keeps a head-limited search cheap and its merge exact:
 * the global first N are always among the shards' first N.
 */
import { lstatSync } from 'node:fs';
import picomatch from 'picomatch';
import { IgnoreRules } from './ignore.ts';
import { compileGlob, compileRegex } from './matcher.ts';
import { type Line, searchFile } from './search.ts';
import { comparePaths, type Entry, type SkipReason, type Visitor, visitFiles, type WalkOptions, walk } from './walk.ts';

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
}

export interface GlobShard extends ShardBase {
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

export interface GlobShardResult extends ShardStats {
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
  /** Filter on file paths (ripgrep's --glob: without a slash it matches the name at any depth). */
  glob?: string;
}

export interface GrepFileResult {
  rel: string;
  lines: Line[];
  matches: number;
}

export interface GrepShardResult extends ShardStats {
  files: GrepFileResult[];
  binary: number;
  unreadable: { rel: string; error: string }[];
  skipped: SkipCounts;
  /** Results held (output lines in content mode, files otherwise). */
  results: number;
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

export function runGlobShard(t: GlobShard): GlobShardResult {
  const matcher = compileGlob(t.pattern, { dot: t.dot });
  const counting = compileGlob(t.pattern, { dot: true });
  if (!matcher.ok || !counting.ok) throw new Error('invalid glob'); // validated before dispatch: a bug if it fails here
  const { match } = matcher.value;
  const wouldMatch = counting.value.match;
  const paths: string[] = [];
  const mtimes: number[] = [];
  const count = counter();
  let visited = 0;
  let stopped = false;
  const visitor: Visitor = {
    file(e, at) {
      visited++;
      if (match(e.rel)) {
        paths.push(e.rel);
        if (t.withMtime) mtimes.push(at === undefined ? 0 : mtimeOf(at)); // through the checked directory
      }
      stopped = paths.length >= t.maxResults;
      return stopped;
    },
    skipped: (rel, isDir, reason) => (isDir || wouldMatch(rel) ? count.add(reason, isDir) : undefined),
  };
  const files = [...t.files].sort((a, b) => comparePaths(a.rel, b.rel));
  const o = { ...t.walk, openFiles: t.withMtime }; // names only, unless the mtimes are wanted
  if (!visitFiles(o, files, visitor)) walk(o, t.dirs, visitor, new IgnoreRules(t.root, t.walk.ignoreBase));
  return { paths, mtimes, skipped: count.skipped, visited, stopped };
}

/** The mtime of the entry at `at` (never followed: a symlink's own). */
function mtimeOf(at: string): number {
  try {
    return lstatSync(at).mtimeMs;
  } catch {
    return 0;
  }
}

export function runGrepShard(t: GrepShard): GrepShardResult {
  const spec = compileRegex(t.pattern, {
    ignoreCase: t.ignoreCase,
    fixedStrings: t.fixedStrings,
    multiline: t.multiline,
  });
  if (!spec.ok) throw new Error(spec.error);
  const filter = t.glob ? picomatch(t.glob, { dot: true, basename: !t.glob.includes('/') }) : undefined;
  const out: GrepShardResult = {
    files: [],
    binary: 0,
    unreadable: [],
    skipped: {},
    results: 0,
    visited: 0,
    stopped: false,
  };
  const count = counter();
  const visit = (e: Entry, at?: string): boolean => {
    out.visited++;
    if (e.kind !== 'file' || at === undefined) return false; // symlinks are not followed, as in ripgrep
    if (filter && !filter(e.rel)) return false;
    const left = t.maxResults - out.results;
    const r = searchFile(at, {
      spec: spec.value,
      multiline: t.multiline,
      before: t.before,
      after: t.after,
      firstOnly: t.mode === 'files_with_matches',
      maxLines: t.mode === 'content' ? left : Number.POSITIVE_INFINITY,
      countOnly: t.mode === 'count',
    });
    if (r.kind === 'binary') out.binary++;
    else if (r.kind === 'unreadable') out.unreadable.push({ rel: e.rel, error: r.error });
    else if (r.matches > 0) {
      out.files.push({ rel: e.rel, lines: r.lines, matches: r.matches });
      out.results += t.mode === 'content' ? r.lines.length : 1;
    }
    out.stopped = out.results >= t.maxResults;
    return out.stopped;
  };
  const visitor: Visitor = {
    file: visit,
    skipped: (_rel, isDir, reason) => count.add(reason, isDir),
    unreachable: (e) => out.unreadable.push({ rel: e.rel, error: UNREACHABLE }),
  };
  const files = [...t.files].sort((a, b) => comparePaths(a.rel, b.rel));
  const o = { ...t.walk, openFiles: true };
  if (!visitFiles(o, files, visitor)) walk(o, t.dirs, visitor, new IgnoreRules(t.root, t.walk.ignoreBase));
  out.skipped = count.skipped;
  return out;
}

/** Why a file listed earlier was not read: its directory could not be opened as itself any more. */
const UNREACHABLE = 'its directory is gone or was replaced since it was listed';

export function runShard(t: ShardTask): ShardResult {
  return t.kind === 'glob' ? runGlobShard(t) : runGrepShard(t);
}
