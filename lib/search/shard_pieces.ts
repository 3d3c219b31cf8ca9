/**
 * A shard as pieces run one after another, and their results as the one result the whole shard would
 * have given: for a lane that can hold its thread only briefly (lib/lanes/this_thread_lane.ts). A shard
 * walks its loose files, then its directories, in that order; its pieces keep it (files in groups,
 * then each directory alone), so their results, joined in order, are the shard's. Pure functions.
 */

import type { ShardListing } from './listing.ts';
import type { GlobShardResult, GrepShardResult, ShardResult, ShardTask, SkipCounts } from './shards.ts';

/** Loose files per piece: a file is a read, a directory may be a whole subtree. */
export const FILES_PER_PIECE = 64;

/** `t` as pieces in its own order: groups of loose files, then one directory each. */
export function piecesOf(t: ShardTask, filesPerPiece = FILES_PER_PIECE): ShardTask[] {
  const pieces: ShardTask[] = [];
  for (let i = 0; i < t.files.length; i += filesPerPiece)
    pieces.push({ ...t, dirs: [], files: t.files.slice(i, i + filesPerPiece) });
  for (const dir of t.dirs) pieces.push({ ...t, dirs: [dir], files: [] });
  return pieces.length > 0 ? pieces : [t];
}

/** What the rest of `t` is, from piece `from` of `piecesOf(t)` on, as one shard. */
export function restOf(t: ShardTask, pieces: readonly ShardTask[], from: number): ShardTask {
  const rest = pieces.slice(from);
  return { ...t, files: rest.flatMap((p) => p.files), dirs: rest.flatMap((p) => p.dirs) };
}

/** How many results `r` holds, as a head limit counts them. */
export const heldBy = (r: ShardResult) => ('results' in r ? r.results : r.paths.length);

/** The results of consecutive pieces of one shard as that shard's result. */
export function joinResults(results: readonly ShardResult[]): ShardResult {
  const first = results[0];
  if (!first) throw new Error('joinResults: no results');
  if (results.length === 1) return first;
  return 'paths' in first
    ? joinGlob(results as readonly GlobShardResult[])
    : joinGrep(results as readonly GrepShardResult[]);
}

function joinSkipped(all: readonly SkipCounts[]): SkipCounts {
  const out: SkipCounts = {};
  for (const s of all)
    for (const [reason, c] of Object.entries(s) as [keyof SkipCounts, { dirs: number; files: number }][]) {
      const o = out[reason] ?? { dirs: 0, files: 0 };
      out[reason] = { dirs: o.dirs + c.dirs, files: o.files + c.files };
    }
  return out;
}

const sum = <T>(rs: readonly T[], f: (r: T) => number | undefined) => rs.reduce((n, r) => n + (f(r) ?? 0), 0);

/** The arrays one after another (`flatMap` over whole-tree globs' path lists took ~5 ms a join). */
function cat<R, T>(rs: readonly R[], f: (r: R) => readonly T[]): T[] {
  const out: T[] = [];
  for (const r of rs) for (const x of f(r)) out.push(x);
  return out;
}

function joinGlob(rs: readonly GlobShardResult[]): GlobShardResult {
  return {
    paths: cat(rs, (r) => r.paths),
    mtimes: cat(rs, (r) => r.mtimes),
    skipped: joinSkipped(rs.map((r) => r.skipped)),
    visited: sum(rs, (r) => r.visited),
    stopped: rs.some((r) => r.stopped),
  };
}

function joinGrep(rs: readonly GrepShardResult[]): GrepShardResult {
  const out: GrepShardResult = {
    files: cat(rs, (r) => r.files),
    binary: sum(rs, (r) => r.binary),
    unreadable: rs.flatMap((r) => r.unreadable),
    skipped: joinSkipped(rs.map((r) => r.skipped)),
    results: sum(rs, (r) => r.results),
    visited: sum(rs, (r) => r.visited),
    stopped: rs.some((r) => r.stopped),
  };
  const listed = joinListings(rs.flatMap((r) => (r.listed ? [r.listed] : [])));
  if (listed) out.listed = listed;
  if (rs.some((r) => r.searched !== undefined)) out.searched = sum(rs, (r) => r.searched);
  const firstBinary = rs.find((r) => r.firstBinary)?.firstBinary;
  if (firstBinary) out.firstBinary = firstBinary;
  if (rs.some((r) => r.unindexed)) out.unindexed = rs.flatMap((r) => r.unindexed ?? []);
  if (rs.some((r) => r.indexedSeen !== undefined)) out.indexedSeen = sum(rs, (r) => r.indexedSeen);
  if (rs.some((r) => r.outOfTime)) out.outOfTime = true;
  return out;
}

/** Listings one after another: names joined by NUL (bytes stay bytes when all are), counts in order. */
function joinListings(ls: readonly ShardListing[]): ShardListing | undefined {
  const some = ls.filter((l) => l.names.length > 0);
  if (some.length === 0) return ls[0];
  const counts = some.some((l) => l.counts) ? some.flatMap((l) => l.counts ?? []) : undefined;
  const names = some.every((l) => typeof l.names !== 'string')
    ? Buffer.concat(some.flatMap((l, i) => (i === 0 ? [l.names as Uint8Array] : [SEPARATOR, l.names as Uint8Array])))
    : some.map((l) => (typeof l.names === 'string' ? l.names : Buffer.from(l.names).toString('utf8'))).join('\0');
  return counts ? { names, counts } : { names };
}

const SEPARATOR = new Uint8Array([0]);
