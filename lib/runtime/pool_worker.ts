/**
 * The worker entry of the read lane. It imports the read-only tools and the search shards, nothing
 * that writes: a write tool's module is never loaded in a worker.
 */
import v8 from 'node:v8';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { CheckedPath } from '../core/paths.ts';
import type { AnyTool } from '../core/tool.ts';
import type { PoolResult, PoolTask } from '../lanes/pool_protocol.ts';
import { runIndexShard } from '../search/index/build_shard.ts';
import { runStatesShard } from '../search/index/states_shard.ts';
import { runShard } from '../search/shards.ts';
import { READ_TOOLS } from '../tools/read_tools.ts';

// Lets V8 fall back to its linear engine when a regex backtracks excessively: the globs' and ignore
// rules' expressions. Not grep's patterns, compiled with /v, which that engine does not take (nor /i,
// /u, backreferences, lookarounds): the task deadline stops those. Terminating the worker reaches the
// linear engine as promptly as the backtracking one (measured on Node 20: 0.1–0.3 s into a 30 s run).
v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

const neverAborted = new AbortController().signal;

/** Runs one read-lane task (Piscina calls it by name: READ_LANE_TASK). */
export async function readLaneTask(task: PoolTask): Promise<PoolResult> {
  if (task.kind === 'index') return movingSegments(runIndexShard(task));
  if (task.kind === 'index-states') return runStatesShard(task);
  if (task.kind !== 'tool') {
    try {
      return movingListing(runShard(task));
    } finally {
      if (task.answered) Atomics.store(task.answered, 0, 1);
    }
  }
  const tool: AnyTool | undefined = READ_TOOLS.find((t) => t.name === task.name && t.lane === 'pool');
  if (!tool) return { content: `The worker runs no tool named "${task.name}".`, isError: true, code: 'internal' };
  // Arguments were validated by this tool's schema on the main thread; a pool tool's context is the plain one.
  return tool.invoke(task.args, {
    root: task.root,
    paths: task.paths as CheckedPath[],
    signal: neverAborted,
    ...(task.form ? { form: task.form } : {}),
    ...(task.wording ? { wording: task.wording } : {}),
  });
}

/**
 * A grep shard's listing bytes (lib/search/listing.ts) go to the main thread moved, not copied: a
 * whole-tree answer is a few MB, which a copy would allocate once more on each side.
 */
function movingListing(r: ReturnType<typeof runShard>): PoolResult {
  const names = 'listed' in r ? r.listed?.names : undefined;
  if (!(names instanceof Uint8Array) || names.byteLength === 0) return r;
  // Piscina's custom transferable: what to move, and the value that carries it.
  const movable = { [transferableSymbol]: [names.buffer], [valueSymbol]: r };
  return move(movable as unknown as Parameters<typeof move>[0]) as unknown as PoolResult;
}

/**
 * An index piece's segments handed back as bytes (where it could not append them to the spool) go to
 * the main thread moved, not copied: each is its own buffer, ~0.5 MB, and a copy would exist on both
 * sides until the worker collects.
 */
function movingSegments(r: ReturnType<typeof runIndexShard>): PoolResult {
  const buffers = r.segments.flatMap((s) => ('bytes' in s ? [s.bytes.buffer] : []));
  if (buffers.length === 0) return r;
  const movable = { [transferableSymbol]: buffers, [valueSymbol]: r };
  return move(movable as unknown as Parameters<typeof move>[0]) as unknown as PoolResult;
}
