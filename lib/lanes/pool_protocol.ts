/**
 * What crosses the main-thread/worker boundary: plain data only (no classes, no functions), so
 * structured clone carries it intact. A task is a whole read-only tool call, one search shard, or one
 * piece of the index's build or check.
 */
import type { AnswerForm } from '../core/answers.ts';
import type { ToolResult } from '../core/tool.ts';
import type { Wording } from '../core/wording.ts';
import type { IndexShard, IndexShardResult } from '../search/index/build_shard.ts';
import type { StatesShard, StatesShardResult } from '../search/index/states_shard.ts';
import type { ShardResult, ShardTask } from '../search/shards.ts';

/** The worker module's export that runs a task (lib/runtime/pool_worker.ts, and the bundle's). */
export const READ_LANE_TASK = 'readLaneTask';

export interface ToolTask {
  kind: 'tool';
  /** A tool of the `pool` lane; the worker refuses any other. */
  name: string;
  /** Arguments already parsed and checked on the main thread. */
  args: unknown;
  root: string;
  /** Checked paths, in access order. */
  paths: string[];
  /** The call's answer form and hint wording (ToolContext's). */
  form?: AnswerForm;
  wording?: Wording;
}

export type PoolTask = ToolTask | ShardTask | IndexShard | StatesShard;
export type PoolResult = ToolResult | ShardResult | IndexShardResult | StatesShardResult;
