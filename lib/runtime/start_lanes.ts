/**
 * The lanes a runtime's tools run in, started with what they share: the read pool (or its standby
 * worker), the search index on it, the idle heap trim that both report to, background jobs and the
 * sandbox's network proxy. Part of createRuntime's wiring (runtime.ts). Main thread.
 */
import { compileOnOwnThread, holdAgain } from '../core/heap_hold.ts';
import type { Limits } from '../core/limits.ts';
import type { Mode } from '../core/modes.ts';
import type { LaneRunner } from '../core/registry.ts';
import { childEnv } from '../exec/env.ts';
import { JobTable } from '../exec/jobs.ts';
import type { Ledger } from '../files/ledger.ts';
import type { Journal } from '../history/journal.ts';
import { createLanes } from '../lanes/dispatch.ts';
import { createHeapTrim, HEAP_MARK_IDLE_MS, HEAP_TRIM_IDLE_MS, type HeapTrim } from '../lanes/heap_trim.ts';
import { createReadPool, defaultWorkers, type ReadPool } from '../lanes/pool.ts';
import type { ShellSeen } from '../lanes/write_context.ts';
import type { WriteLane } from '../lanes/write_lane.ts';
import type { PathGate } from '../policy/path_gate.ts';
import type { Flags } from '../policy/permissions.ts';
import { searchSkipOf } from '../policy/read_deny.ts';
import type { Rule } from '../policy/rules.ts';
import type { SandboxConfig } from '../sandbox/bwrap.ts';
import { createNetProxy, type NetProxy } from '../sandbox/net_proxy.ts';
import type { GitUser } from '../search/ignore.ts';
import type { SearchIndex } from '../search/index/service.ts';
import type { SkillCatalog } from '../skills/catalog.ts';
import type { SkillSources } from '../skills/fetch.ts';
import { type IndexUse, searchIndexFor } from './search_index.ts';

const DEFAULT_READ_TIMEOUT_MS = 60_000;

/** The runtime options the lanes read (RuntimeOptions' own, which runtime.ts documents). */
export interface LaneOptions {
  workers?: number;
  heapTrimMs?: number | false;
  readTimeoutMs?: number;
  index?: IndexUse;
  indexCacheDir?: string;
  backgroundJobs?: boolean;
  skillSources?: SkillSources;
}

/** The lanes tools run in, with the read pool (or its standby worker) and the search index they share. */
export function startLanes(
  options: LaneOptions,
  o: {
    gate: PathGate;
    flags: Flags;
    rules: readonly Rule[];
    mode: Mode;
    sandbox: SandboxConfig | undefined;
    limits: Limits;
    ledger: Ledger;
    skills: SkillCatalog;
    gitUser: GitUser | undefined;
    writeLane: WriteLane;
    journal: Journal | undefined;
  },
): {
  lanes: LaneRunner;
  index: SearchIndex | undefined;
  pool: ReadPool | undefined;
  standby: ReadPool | undefined;
  jobs: JobTable;
  shellSeen: ShellSeen;
  netProxy: NetProxy | undefined;
  heapTrim: HeapTrim;
} {
  const { gate, ledger, skills } = o;
  // The young generation is held again at every activity's start and end, and as each worker starts
  // (whose set-up put V8's growth factor back), for whichever runtimes hold it (none: nothing is done).
  const heapTrim = createHeapTrim({
    idleMs: options.heapTrimMs || HEAP_TRIM_IDLE_MS,
    markMs: HEAP_MARK_IDLE_MS,
    hold: holdAgain,
  });
  if (options.heapTrimMs === false) heapTrim.close();
  const workers = options.workers ?? defaultWorkers();
  // Workers set up while the heap is held optimise on their own thread (core/heap_hold.ts says why).
  const poolOptions = { activity: heapTrim, onWorkerStart: holdAgain, compileGate: compileOnOwnThread };
  const pool = options.workers === 0 ? undefined : createReadPool({ workers, ...poolOptions });
  // With two or more, and an index in use, this thread is one of a search's lanes in place of a
  // worker: a worker fewer while serving, 15–24 MiB less (lib/lanes/this_thread_lane.ts). Searches are
  // then served from the index and a walk is the exception; without one every search walks, and the
  // workers alone walk faster (this thread runs its part between the event loop's turns and answers
  // the call too: 1.12× as long on two cores, bench/compare.ts). An index build or check still runs
  // on every worker, and then ends them (below): the searches after it start only what they use.
  const searchHere = workers >= 2 ? () => index?.loaded !== undefined : undefined;
  // Without a pool, one worker started on first need: only a worker can stop a runaway regex.
  const standby = pool ? undefined : createReadPool({ workers: 1, ...poolOptions });
  const searchSkip = searchSkipOf(o.flags, o.rules, gate, o.mode);
  // A build leaves ~30 MiB of dead tables and buffers in the main thread's heap, which V8 would keep
  // until its heap limit, serving on top of them: one collection when the build is in use frees
  // them (bench/memory.bench.ts, 104k-file real-shaped tree, 3 alternated rounds: main heap 58–64
  // against 86–87 MiB at serving's end, peak serving 211–230 against 236–241), for 10–20 ms of the main
  // thread once per build. The workers that built it are recycled too: each kept the build's n-gram
  // memory and garbage while it lived (serving after a build 177–178 against 185–187 MiB, the first
  // searches after it ~100 ms slower in all, on fresh workers).
  const indexPool = pool ?? standby;
  const index = searchIndexFor(gate.root, options, indexPool, searchSkip?.(gate.root), o.gitUser, {
    onBuilt: () => {
      heapTrim.sweep();
      indexPool?.recycle();
    },
    ...(searchHere ? { onChecked: () => indexPool?.recycle() } : {}),
  });
  if (index) ledger.onChange = (realPath) => index.noteWrite(realPath);
  const jobs = new JobTable();
  const shellSeen: ShellSeen = {};
  const netAllow = o.flags.allow.net;
  const netProxy = o.sandbox?.proxyNet ? createNetProxy() : undefined;
  const lanes = createLanes({
    shellSeen,
    ...(pool ? { pool, ...(searchHere ? { searchHere } : {}) } : {}),
    ...(standby ? { standby } : {}),
    readTimeoutMs: options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS,
    searchSkip,
    ...(index ? { index } : {}),
    ...(o.gitUser ? { gitUser: o.gitUser } : {}),
    ledger,
    writeLane: o.writeLane,
    ...(o.journal ? { recorder: o.journal } : {}),
    exec: {
      env: childEnv(process.env, o.flags.allow.env ?? false, { allowLoader: o.mode === 'bypass' }),
      ...(o.sandbox ? { sandbox: o.sandbox } : {}),
      ...(netProxy ? { netProxy, netAllow: Array.isArray(netAllow) ? netAllow : [] } : {}),
      limits: o.limits,
      ...(options.backgroundJobs === false ? {} : { jobs }),
    },
    skills,
    skillSources: {
      ...(process.env.MEWCODE_GITHUB_API ? { githubApi: process.env.MEWCODE_GITHUB_API } : {}),
      ...(process.env.MEWCODE_SKILLS_SH ? { skillsSh: process.env.MEWCODE_SKILLS_SH } : {}),
      ...options.skillSources,
    },
  });
  return { lanes, index, pool, standby, jobs, shellSeen, netProxy, heapTrim };
}
