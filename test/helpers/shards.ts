/** Search shards as the planner makes them (lib/search/shards.ts), for tests that run them directly. */
import type { GrepMode, ShardTask } from '../../lib/search/shards.ts';

interface GrepShardOptions {
  ignoreCase?: boolean;
  mode?: GrepMode;
  maxResults?: number;
  /** The directories it walks, relative to `root`; default the root's whole tree (`['']`). */
  dirs?: string[];
  /** Whether ignore files are read (default true). */
  useIgnore?: boolean;
  stopAt?: number;
}

/** A grep shard of the regex `pattern` over `root`: hidden files skipped, every answer wanted by default. */
export function grepShard(root: string, pattern: string, o: GrepShardOptions = {}): ShardTask {
  const walk = {
    root,
    useIgnore: o.useIgnore ?? true,
    hidden: false,
    maxDepth: Number.POSITIVE_INFINITY,
    ignoreBase: root,
  };
  return {
    kind: 'grep',
    pattern,
    ignoreCase: o.ignoreCase ?? false,
    fixedStrings: false,
    multiline: false,
    before: 0,
    after: 0,
    mode: o.mode ?? 'content',
    maxResults: o.maxResults ?? Number.POSITIVE_INFINITY,
    root,
    walk,
    dirs: o.dirs ?? [''],
    files: [],
    ...(o.stopAt !== undefined ? { stopAt: o.stopAt } : {}),
  } as unknown as ShardTask;
}
