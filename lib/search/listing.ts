/**
 * The files a grep found in files_with_matches and count modes, merged from its shards' listings
 * (`GrepShardResult.listed`: one NUL-separated string of paths and an array of counts per shard).
 * A whole-tree answer is ~100k files on the bench tree: kept as two flat arrays, it costs the main
 * thread a string per file instead of an object, a string and an array per file. Main thread.
 */
import type { GrepShardResult } from './shards.ts';
import { comparePaths } from './walk.ts';

/** Paths in path order, and their match counts (count mode) at the same positions. */
export interface Listing {
  names: readonly string[];
  counts: readonly number[];
}

export function mergeListings(results: readonly GrepShardResult[]): Listing {
  const names: string[] = [];
  const counts: number[] = [];
  for (const r of results) {
    if (!r.listed || r.listed.names === '') continue;
    const own = r.listed.names.split('\0');
    for (let i = 0; i < own.length; i++) {
      names.push(own[i] as string);
      counts.push(r.listed.counts?.[i] ?? 1);
    }
  }
  // Each shard's run is already in path order; the sort interleaves the runs.
  const order = names.map((_, i) => i).sort((a, b) => comparePaths(names[a] as string, names[b] as string));
  return { names: order.map((i) => names[i] as string), counts: order.map((i) => counts[i] as number) };
}
