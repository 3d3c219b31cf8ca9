/**
 * The read lane's worker pool (Piscina), created on first use. Every task runs under a deadline: past
 * it Piscina terminates the worker (the only way to stop a runaway regex) and starts a fresh one, so
 * the pool keeps serving. Workers get a heap limit. Piscina itself loads with the first task. Main thread.
 */
import { setMaxListeners } from 'node:events';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import { IN_BUNDLE } from '../core/build_info.ts';
import { errValue, okValue } from '../core/result.ts';
import type { TaskOutcome } from '../core/task_outcome.ts';
import { SHARD_DEADLINE } from '../search/shards.ts';
import type { Activity } from './heap_trim.ts';
import { type PoolResult, type PoolTask, READ_LANE_TASK } from './pool_protocol.ts';
import { type CompileGate, PiscinaSlot } from './pool_slot.ts';

/** Heap limit of each worker, in MiB. */
const WORKER_HEAP_MB = 512;
/** Young-generation size of each worker, in MiB. */
const WORKER_YOUNG_MB = 4;
/**
 * How long a worker may sit idle before it ends. A worker's heap, buffers and directory caches stay
 * with it (~50 MiB each on a real tree) and an idle one never collects them: Piscina's workers wait
 * for tasks in Atomics.wait, where V8 runs no idle-time collection. Ending idle workers gives an idle
 * runtime its memory back; the next search starts them again. Measured (bench/memory.bench.ts and
 * bench/idle_latency.ts, 110k-file real-shaped tree, 2 workers, built library): 5 s after a burst an
 * unindexed runtime holds 71 instead of 139 MiB, an indexed one 200 instead of 408; the cost is the
 * first search after the pause: a whole-tree grep 5.0 s against 2.5 s, a glob 0.72 against 0.28 s
 * (medians of 6, alternated; new workers have empty directory caches and unoptimised code).
 */
const IDLE_WORKER_MS = 5000;
/** How Piscina's 'error' event begins for a worker's answer to a task no longer waited for. */
const UNEXPECTED_ANSWER = 'Unexpected message from Worker';

// From source (tsx: '.ts'; compiled: '.js'), workers run the task handler of pool_worker; in the
// single-file bundle they run its read-lane island, which answers for the bundle's own path.
const ext = path.extname(fileURLToPath(import.meta.url));
const workerFile = IN_BUNDLE ? import.meta.url : new URL(`../runtime/pool_worker${ext}`, import.meta.url).href;
// From source under a tsx registered in this thread alone (bin/mewcode.mjs when dist/ is stale, or a
// host's own `register()`), a worker does not know '.ts' and failed to start: it is given tsx's loader.
// Started with a loader in the node flags (`tsx`, `node --import tsx`), workers inherit it with them.
const workerExecArgv = ext === '.ts' && !process.execArgv.some(isLoaderFlag) ? withTsx(process.execArgv) : undefined;

function isLoaderFlag(arg: string): boolean {
  return /^(--import|--loader|--experimental-loader|--require|-r)(=|$)/.test(arg);
}

function withTsx(execArgv: readonly string[]): string[] | undefined {
  try {
    return [...execArgv, '--import', import.meta.resolve('tsx')];
  } catch {
    return undefined; // no tsx to be found: the workers start as they did
  }
}

export interface ReadPool {
  readonly size: number;
  /** Runs a task; never rejects. */
  run<T extends PoolResult>(task: PoolTask, signal: AbortSignal): Promise<TaskOutcome<T>>;
  /**
   * Ends the workers once the pool runs no task (tasks given meanwhile still run on them); later
   * tasks start fresh ones once these are gone. For after work that leaves each worker fat for good
   * (an index build: its n-gram memory, a WebAssembly memory that never shrinks, and its tables'
   * garbage in an old generation that an idle worker never collects).
   */
  recycle(): void;
  close(): Promise<void>;
  /**
   * Aborted as `close()` begins: work for this pool done elsewhere (this thread's search lane) stops
   * with it, as the pool's own tasks do.
   */
  readonly closing: AbortSignal;
}

export const defaultWorkers = () => Math.max(1, availableParallelism());

/**
 * Workers for a CLI command without --workers: none for a one-shot (grep, glob, call…), whose search
 * then runs inline — starting the pool cost more CPU than it saved at every tree size measured on two
 * cores (bench/oneshot.ts: 1.2–1.5× the CPU of inline), and as much or more wall time under load; what
 * must be stoppable still runs on the standby worker. An agent or an MCP server keeps the default pool.
 */
export const cliWorkers = (command: string | undefined) => (command === 'mcp' || command === 'agent' ? undefined : 0);

export function createReadPool(
  options: {
    workers?: number;
    heapMb?: number;
    idleMs?: number;
    activity?: Activity;
    /** Called once each worker is up (its isolate set up, its module loaded). */
    onWorkerStart?: () => void;
    /** Open while workers are set up: how their isolates compile (core/heap_hold.ts compileOnOwnThread). */
    compileGate?: CompileGate;
  } = {},
): ReadPool {
  const size = Math.max(1, options.workers ?? defaultWorkers());
  const slot = new PiscinaSlot(size, options.compileGate);
  // Why a pool was ended under its tasks (a worker failed outside any task).
  const failures = new WeakMap<Piscina, Error>();
  let closed = false;
  const closing = new AbortController();
  // Piscina is imported on first use: a one-shot that searches inline never pays for loading it.
  const get = async () => {
    if (slot.current) return slot.take(slot.current);
    await slot.retired;
    const { Piscina } = await import('piscina');
    // Another first task made one while this one loaded Piscina.
    if (slot.current) return slot.take(slot.current);
    // Closed while Piscina loaded: a pool made now would outlive close() with its task running.
    if (closed) throw new Error('the read pool is closed');
    const made = new Piscina(piscinaOptions(size, options));
    slot.current = made;
    if (options.onWorkerStart) made.on('workerCreate', options.onWorkerStart);
    made.on('error', (e: Error) => {
      // A worker's answer that arrived after its task was ended (an abort, or close() while the
      // answer was queued on the worker's port: Node delivers a port's queued messages after it is
      // closed). The task was settled with its error already. Unheard, this event threw from the
      // message handler: an uncaught exception that ended the process, seen when a runtime closed
      // during its index check and, as often, when a call was cancelled mid-search.
      if (String(e?.message).startsWith(UNEXPECTED_ANSWER)) return;
      // A worker that failed holding no task: most often one that could not start (its module did
      // not load, its heap limit too small to load it). Piscina starts no other then, and the queued
      // tasks would wait for their deadlines (a one-shot's process ended with them unsettled): end
      // this pool, so they fail now with the cause, and let the next task start a new one.
      failures.set(made, e);
      slot.retire(made);
    });
    return slot.take(made);
  };
  return {
    size,
    async run<T extends PoolResult>(task: PoolTask, signal: AbortSignal): Promise<TaskOutcome<T>> {
      // One call's signal is shared by all its shards, queued at once, each adding an abort listener
      // that goes when its task settles: more than Node's default 10 is expected, not a leak (on 4+
      // workers every whole-tree grep printed a MaxListenersExceededWarning).
      setMaxListeners(0, signal);
      // A task (a call's shard, an index build's piece) is activity: the idle heap trim waits for it.
      options.activity?.begin();
      let used: Piscina | undefined;
      try {
        const p = await get();
        used = p;
        return okValue((await slot.give(p, () => p.run(task, { signal }))) as T);
      } catch (e) {
        // The task may have ended its worker: aborted while it ran, or the worker died under it (out
        // of memory at its heap limit). A worker is started for the tasks queued behind it.
        if (used) slot.refill(used);
        if (signal.aborted) {
          const timedOut = (signal.reason as Error)?.name === 'TimeoutError';
          return errValue({
            reason: timedOut ? 'timeout' : 'cancelled',
            message: String((signal.reason as Error)?.message ?? 'aborted'),
          });
        }
        // Ended by close() (the runtime closing under it), or given after: cancelled by the host, in
        // effect. A call running then answered "internal: … Terminating worker thread" before.
        if (closed) return errValue({ reason: 'cancelled', message: 'the read pool was closed' });
        const failure = used && failures.get(used);
        if (failure)
          return errValue({ reason: 'failed', message: `the read pool's worker failed: ${failure.message}` });
        const message = (e as Error)?.message ?? String(e);
        // A shard that stopped itself at its deadline (lib/search/shards.ts), before the pool's timer.
        return errValue({ reason: message.includes(SHARD_DEADLINE) ? 'timeout' : 'failed', message });
      } finally {
        if (used) slot.taskEnded(used);
        options.activity?.end();
      }
    },
    recycle: () => slot.recycle(),
    closing: closing.signal,
    async close() {
      closed = true;
      closing.abort(new Error('the read pool was closed'));
      await slot.close();
    },
  };
}

/** The read lane's Piscina: workers started as tasks come, ended when idle, with small heaps. */
function piscinaOptions(size: number, options: { heapMb?: number; idleMs?: number }) {
  return {
    filename: workerFile,
    name: READ_LANE_TASK,
    minThreads: 0,
    maxThreads: size,
    idleTimeout: options.idleMs ?? IDLE_WORKER_MS,
    ...(workerExecArgv ? { execArgv: workerExecArgv } : {}),
    // A small young generation keeps each worker's RSS down (a search makes much short-lived
    // garbage). 8 MiB against 16 (bench/rss_probe.ts, 100k-file tree, 2 workers): a whole-tree
    // count's peak 153–158 against 172–174 MiB (three alternated runs); warm speed level
    // (bench/compare.ts, 10 cases: median ratio 16/8 = 1.06, load 11–13). The ~10% that 8 MiB once
    // cost on `-i` was measured before `-i` searched raw bytes (fold_wasm.ts) instead of a latin1 copy.
    // 4 MiB against 8, once whole-tree listings stopped leaving garbage (lib/search/listing.ts): the
    // rss_probe sequence's peak 123–128 against 138–141 MiB (three alternated runs, load ~5); warm
    // speed level (compare.ts, 10 cases, two runs: median ratio 4/8 = 0.98 and 1.00, load ~6); index
    // rebuild CPU +5% (2.62–2.74 against 2.47–2.69 s, three alternated builds).
    resourceLimits: {
      maxOldGenerationSizeMb: options.heapMb ?? WORKER_HEAP_MB,
      maxYoungGenerationSizeMb: WORKER_YOUNG_MB,
    },
  };
}
