/**
 * The search lane's context: glob and grep run on the main thread and fan shards out through
 * `shards`; `readDeny` names what the policy refuses to read, which a search skips without naming.
 */
import type { ToolContext } from '../core/tool.ts';
import type { DenySpec } from '../search/denied.ts';
import type { GitUser } from '../search/ignore.ts';
import type { SearchIndex } from '../search/index/service.ts';
import type { ShardRunner } from '../search/parallel.ts';

export interface SearchContext extends ToolContext {
  /** Runs search shards across the worker pool; absent where they must run inline. */
  shards?: ShardRunner;
  /**
   * Without a pool: runs a shard on a standby worker, under the deadline, for work that must be
   * stoppable (a pattern that could backtrack without end).
   */
  isolated?: ShardRunner;
  /**
   * When the call's read deadline passes (a `Date.now()` time). A search running inline checks it
   * between files: nothing else could stop it, since no timer fires while this thread is busy.
   */
  deadlineAt?: number;
  /** Paths the policy denies for reading: searches skip them without naming them. */
  readDeny?: DenySpec;
  /** The root's n-gram index, when the runtime uses one: a prefilter only. */
  index?: SearchIndex;
  /** Where the user's git config is, for the global excludes file (none read without it). */
  gitUser?: GitUser;
}
