/**
 * Walk summaries: what one full walk of a directory met besides the files the index holds (files it
 * does not hold, entries it skipped). While the tree keeps its shape — nothing added, removed or
 * renamed, no ignore rule changed — the next search of that directory needs no walk: its files are
 * the index's candidates plus those. Main thread.
 */
import type { DenySpec } from '../denied.ts';
import { dirOf } from '../rel_paths.ts';
import type { GrepShardResult, SkipCounts } from '../shards.ts';
import { comparePaths, type Entry } from '../walk.ts';
import type { GrepPrefilter } from './skip.ts';
import type { FileTable } from './table.ts';

/** What a grep asks the index (service.ts `SearchIndex.prefilter`): `dir` is a real path. */
export interface PrefilterQuery {
  dir: string;
  pattern: string;
  ignoreCase: boolean;
  fixedStrings: boolean;
  multiline?: boolean;
  /** Inverted: the files that do not hold the pattern match — the index cannot rule any out. */
  invert?: boolean;
  /** The search's glob and type filter: part of a walk summary's key. */
  filter?: unknown;
  walk: { useIgnore: boolean; hidden: boolean; deny?: DenySpec; fileGlobs?: readonly string[] };
}

/** What the index says to a grep (service.ts `SearchIndex.prefilter`). */
export interface PrefilterAnswer {
  prefilter?: GrepPrefilter;
  /** What the answer's meta says: 'served', or why the index was not used. */
  index: string;
  /**
   * No walk needed: nothing was added, removed or renamed, and no ignore file changed, since the last
   * full walk of this directory, so its files are the candidates plus the files it met that the index
   * does not hold, and it skipped what it skipped then.
   */
  direct?: { files: Entry[]; skipped: SkipCounts };
  /** Give it the results of the full walk this answer led to: the next search may then skip walking. */
  learn?: (results: readonly GrepShardResult[], planned: SkipCounts) => void;
  /**
   * Walk on past the results to learn the tree (shards.ts `learnUntil`): unless such a walk of this
   * directory already ran out of time since the tree last changed shape.
   */
  walkOn?: boolean;
}

export interface WalkSummary {
  /** The tree's shape (a counter bumped on every change of shape) when the walk began. */
  shape: number;
  /** Files met that the index does not hold, relative to the walked directory. */
  unindexed: string[];
  skipped: SkipCounts;
}

/**
 * Whether a walk met all it was given: no shard stopped at its result limit (a grep's head_limit),
 * and each listed the files it met outside the index. One that did not saw part of the tree, which
 * says nothing of the rest — nor anything wrong with the index.
 */
export const walkedWhole = (results: readonly GrepShardResult[]): boolean =>
  results.every((r) => !r.stopped && r.unindexed !== undefined);

/**
 * The summary of a whole walk of `prefix` (the walked directory relative to the root, with a
 * trailing slash), or undefined when it cannot stand in for the next walk: it stopped early, it missed
 * an indexed file (deleted or newly ignored since the build), or it met a file in a directory no
 * watch covers (made since the build, so later neighbours would go unseen).
 */
export function summarise(
  shape: number,
  results: readonly GrepShardResult[],
  planned: SkipCounts,
  prefix: string,
  indexed: FileTable,
  watched: ReadonlySet<string>,
): WalkSummary | undefined {
  if (!walkedWhole(results)) return undefined;
  const seen = results.reduce((n, r) => n + (r.indexedSeen ?? 0), 0);
  if (seen !== (prefix === '' ? indexed.length : indexed.under(prefix).length)) return undefined;
  const unindexed = results.flatMap((r) => r.unindexed ?? []);
  if (unindexed.some((u) => !watched.has(dirOf(prefix + u)))) return undefined;
  return { shape, unindexed, skipped: [planned, ...results.map((r) => r.skipped)].reduce(addSkips, {}) };
}

/** The files a search of `prefix` reads without walking: the candidates below it and the unindexed. */
export function directFiles(candidates: readonly string[], prefix: string, s: WalkSummary): Entry[] {
  const mine = candidates.filter((c) => c.startsWith(prefix)).map((c) => c.slice(prefix.length));
  return [...new Set([...mine, ...s.unindexed])].sort(comparePaths).map((rel): Entry => ({ rel, kind: 'file' }));
}

function addSkips(into: SkipCounts, more: SkipCounts): SkipCounts {
  for (const [reason, c] of Object.entries(more) as [keyof SkipCounts, { dirs: number; files: number }][]) {
    const had = into[reason] ?? { dirs: 0, files: 0 };
    into[reason] = { dirs: had.dirs + c.dirs, files: had.files + c.files };
  }
  return into;
}
