/**
 * Dispatch: the one place that maps a tool's lane to how its checked call runs. `admit` decides when
 * a whole call may start (write calls queue in the write lane, one at a time, and are authorised
 * there, at the moment they run); `run` hands the checked call the context of its lane:
 * - `pool`: a worker of the read pool under the read deadline (inline when there is no pool);
 * - `search`: here, fanning shards out to the pool under the same deadline, skipping denied paths;
 *   without a pool, inline, but what must be stoppable runs on the standby worker under that deadline;
 * - `main`: here, with the skill catalog, the background jobs and the runtime's plans (todo_write);
 * - `write`: here, inside the write lane, with the ledger and the command environment.
 * Every read record a result carries goes into the ledger. Main thread.
 */

import { callDeadline } from '../core/deadline.ts';
import type { LaneRunner } from '../core/registry.ts';
import { type AnyTool, fail, type Lane, type ToolContext, type ToolResult } from '../core/tool.ts';
import type { ChangeRecorder, RecordNote } from '../files/changes.ts';
import type { Ledger } from '../files/ledger.ts';
import type { SearchSkip } from '../policy/read_deny.ts';
import type { GitUser } from '../search/ignore.ts';
import type { SearchIndex } from '../search/index/service.ts';
import type { ShardRunner } from '../search/parallel.ts';
import type { SkillCatalog } from '../skills/catalog.ts';
import type { SkillSources } from '../skills/fetch.ts';
import type { MainContext } from './main_context.ts';
import type { ReadPool } from './pool.ts';
import type { ToolTask } from './pool_protocol.ts';
import type { SearchContext } from './search_context.ts';
import { withThisThread } from './this_thread_lane.ts';
import { TodoPlans } from './todo_plans.ts';
import type { ExecConfig, ShellSeen, WriteContext } from './write_context.ts';
import { WriteLane } from './write_lane.ts';

interface LaneConfig {
  /** Absent: every read tool runs inline on this thread. */
  pool?: ReadPool;
  /**
   * Whether this thread is one of a search's lanes in place of one of the pool's workers
   * (this_thread_lane.ts), asked as each search starts; with a pool of two or more only.
   */
  searchHere?: () => boolean;
  /**
   * Without a pool: one worker, started on first need, for the search work that must be stoppable
   * (a pattern that could backtrack without end), which nothing can interrupt on this thread.
   */
  standby?: ReadPool;
  /** Deadline of one read-lane call, in ms. */
  readTimeoutMs: number;
  /** What a search skips, by its root (lib/policy/read_deny.ts). */
  searchSkip?: SearchSkip;
  /** The root's n-gram index, a prefilter for grep. */
  index?: SearchIndex;
  /** Where the user's git config is, for the global excludes file. */
  gitUser?: GitUser;
  ledger: Ledger;
  exec: ExecConfig;
  skills: SkillCatalog;
  skillSources: SkillSources;
  /** Records what each write-lane call changed (the journal); absent: nothing is recorded. */
  recorder?: ChangeRecorder;
  /** The write lane's queue, when the runtime shares it (its restores queue there too). */
  writeLane?: WriteLane;
  /** What the runtime keeps of its root around commands (its watches closed with the runtime). */
  shellSeen?: ShellSeen;
}

/** Each lane's context, for the tools that run there. */
interface LaneContexts {
  pool: ToolContext;
  search: SearchContext;
  main: MainContext;
  write: WriteContext;
}

export function createLanes(c: LaneConfig): LaneRunner {
  const writeLane = c.writeLane ?? new WriteLane();
  // What this runtime learned of the root's size around a command (write_context.ts ShellScope.seen).
  const shellSeen: ShellSeen = c.shellSeen ?? {};
  // One runtime, one set of plans: its lanes are made once (lib/runtime/start_lanes.ts).
  const plans = new TodoPlans();
  const { pool } = c;
  // Each call's deadline ends with the call (lib/core/deadline.ts says why not AbortSignal.timeout).
  const withDeadline = async <T>(ctx: ToolContext, run: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const d = callDeadline(ctx.signal, c.readTimeoutMs);
    try {
      return await run(d.signal);
    } finally {
      d.clear();
    }
  };

  const inPool = async (tool: AnyTool, args: unknown, ctx: ToolContext): Promise<ToolResult> => {
    if (!pool) return tool.invoke(args, ctx);
    const task: ToolTask = {
      kind: 'tool',
      name: tool.name,
      args,
      root: ctx.root,
      paths: [...ctx.paths],
      ...(ctx.form ? { form: ctx.form } : {}),
      ...(ctx.wording ? { wording: ctx.wording } : {}),
    };
    const out = await withDeadline(ctx, (signal) => pool.run<ToolResult>(task, signal));
    if (out.ok) return out.value;
    if (out.error.reason === 'timeout')
      return fail('timeout', `${tool.name} stopped at its deadline of ${c.readTimeoutMs / 1000} s.`);
    if (out.error.reason === 'cancelled') return fail('cancelled', `${tool.name} was cancelled.`);
    return fail('internal', `${tool.name} failed in the worker pool: ${out.error.message}`);
  };

  const runners: { [L in Lane]: (tool: AnyTool, args: unknown, ctx: ToolContext) => Promise<ToolResult> } = {
    pool: inPool,
    search(tool, args, ctx) {
      const root = ctx.paths[0];
      const readDeny = root === undefined ? undefined : c.searchSkip?.(root);
      const deadlineAt = Date.now() + c.readTimeoutMs;
      const search: SearchContext = {
        ...ctx,
        deadlineAt,
        ...(readDeny ? { readDeny } : {}),
        ...(c.index ? { index: c.index } : {}),
        ...(c.gitUser ? { gitUser: c.gitUser } : {}),
      };
      return withDeadline(ctx, (signal) => {
        if (pool) search.shards = searchLanes(pool, signal, c.searchHere?.() === true);
        else if (c.standby) {
          const standby = c.standby;
          search.isolated = { parallelism: 1, run: (task) => standby.run(task, signal) };
        }
        return tool.invoke(args, search);
      });
    },
    main: (tool, args, ctx) =>
      tool.invoke(args, {
        ...ctx,
        skills: c.skills,
        plans,
        ...(c.exec.jobs ? { jobs: c.exec.jobs } : {}),
      } satisfies LaneContexts['main']),
    async write(tool, args, ctx) {
      const changes = c.recorder?.begin(tool.name, ctx.origin);
      const result = await tool.invoke(args, {
        ...ctx,
        ledger: c.ledger,
        exec: c.exec,
        skills: c.skills,
        skillSources: c.skillSources,
        ...(changes && c.recorder
          ? {
              changes,
              shellScope: {
                maxFiles: c.recorder.shellMaxFiles,
                seen: shellSeen,
                ...(c.gitUser ? { gitUser: c.gitUser } : {}),
              },
            }
          : {}),
      } satisfies LaneContexts['write']);
      // Recorded before the answer returns: once the caller sees the change, undo can take it back.
      return changes ? noted(result, await changes.finish()) : result;
    },
  };

  return {
    admit: (tool, call) => (tool.lane === 'write' ? writeLane.run(call) : call()),
    async run(tool, args, ctx) {
      const result = await runners[tool.lane](tool, args, ctx);
      if (result.meta?.read) c.ledger.record(result.meta.read);
      return result;
    },
  };
}

/** The answer with its journal entry (meta.journal), or a note that the change could not be recorded. */
function noted(result: ToolResult, note: RecordNote): ToolResult {
  if (note === undefined) return result;
  if ('id' in note) return { ...result, meta: { ...result.meta, journal: note.id } };
  return {
    ...result,
    content: `${result.content}\n(Not recorded in the journal: ${note.error}. mewcode undo cannot take this change back.)`,
  };
}

/** A search's lanes: the pool's workers, or all but one of them and this thread. */
function searchLanes(pool: ReadPool, signal: AbortSignal, here: boolean): ShardRunner {
  const workers: ShardRunner = { parallelism: pool.size, run: (task) => pool.run(task, signal) };
  if (!here || pool.size < 2) return workers;
  // This thread stops its part of the search as the pool's tasks do: at the call's end or the pool's close.
  return withThisThread({ ...workers, parallelism: pool.size - 1 }, [signal, pool.closing]);
}
