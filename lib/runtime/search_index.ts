/**
 * The runtime's side of the index: which mode a runtime uses and the pool it builds on. A warm
 * runtime (library, agent loop, MCP server) watches its indexed directories; a one-shot CLI call
 * ('existing') checks file states instead, and never builds. Main thread.
 */
import type { ReadPool } from '../lanes/pool.ts';
import type { DenySpec } from '../search/denied.ts';
import type { GitUser } from '../search/ignore.ts';
import { type IndexRunner, inlineIndexRunner } from '../search/index/build.ts';
import type { IndexShardResult } from '../search/index/build_shard.ts';
import { SearchIndex } from '../search/index/service.ts';
import type { StatesShardResult } from '../search/index/states_shard.ts';
import { cacheDir } from '../search/index/store.ts';

export type IndexUse = 'build' | 'existing' | 'off';

/** A build or check piece's deadline: pieces are a fraction of a full search. */
const BUILD_TASK_MS = 10 * 60_000;

function indexRunner(pool: ReadPool | undefined): IndexRunner {
  if (!pool) return inlineIndexRunner;
  return {
    parallelism: pool.size,
    run: (task) => pool.run<IndexShardResult>(task, AbortSignal.timeout(BUILD_TASK_MS)),
    states: (task) => pool.run<StatesShardResult>(task, AbortSignal.timeout(BUILD_TASK_MS)),
  };
}

export function searchIndexFor(
  root: string,
  o: { index?: IndexUse; indexCacheDir?: string },
  pool: ReadPool | undefined,
  deny: DenySpec | undefined,
  gitUser?: GitUser,
  hooks: { onBuilt?: () => void; onChecked?: () => void } = {},
): SearchIndex | undefined {
  const use = o.index ?? 'build';
  if (use === 'off') return undefined;
  return new SearchIndex({
    root,
    use,
    watch: use === 'build',
    runner: indexRunner(pool),
    cacheDir: o.indexCacheDir ?? cacheDir(),
    ...(deny ? { deny } : {}),
    ...(gitUser ? { gitUser } : {}),
    ...hooks,
  });
}
