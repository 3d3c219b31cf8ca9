/**
 * A command's budget, limit by limit, in the strongest place this machine offers: its own cgroup v2
 * where the controller is there (limits_cgroup.ts), else a resource limit on its processes
 * (limits_rlimit.ts), else nothing — said in the outcome, never silently. After the command: which
 * limit ended it, from the kernel's counters where a cgroup held it, else guessed from how the command
 * ended and what it printed, and marked as a guess. Main thread.
 */
import { type Enforcer, LIMIT_NAMES, type LimitHit, type LimitName, type Limits } from '../core/limits.ts';
import { applyCgroupLimits, CPU_POLL_MS, cgroupHit, cpuSeconds, delegateControllers } from './limits_cgroup.ts';
import { rlimitPlan } from './limits_rlimit.ts';
import { v1PidsLimit, v1PidsRefused } from './pids_v1.ts';

export type Held = Partial<Record<LimitName, Enforcer>>;

export interface LimitSetup {
  /** Goes in front of the command's argv, after any containment wrapper. */
  prefix: string[];
  held: Held;
  notes: string[];
  /** The v1 pids cgroup holding the pids limit, to read and remove after the command. */
  v1Pids?: string;
}

/** Sets the limits up for one command: in its cgroup (made, not yet entered) what it can hold, the rest by prlimit. */
export function setUpLimits(limits: Limits, cgroup: { dir: string; parentDir: string } | undefined): LimitSetup {
  let held: Held = {};
  if (cgroup) {
    delegateControllers(cgroup.parentDir);
    held = applyCgroupLimits(cgroup.dir, limits);
  }
  // As root RLIMIT_NPROC holds nothing: a v1 pids cgroup, where one can be made, comes first.
  const v1 = held.pids === undefined && limits.pids !== null ? v1PidsLimit(limits.pids) : undefined;
  if (v1) held.pids = 'cgroup-v1';
  const rest = LIMIT_NAMES.filter((n) => limits[n] !== null && held[n] === undefined);
  const plan = rlimitPlan(limits, rest);
  return {
    prefix: [...(v1?.prefix ?? []), ...plan.prefix],
    held: { ...held, ...plan.held },
    notes: plan.notes,
    ...(v1 ? { v1Pids: v1.dir } : {}),
  };
}

/**
 * While the command runs, what only the runtime can enforce or must act on at once: the cgroup's CPU
 * time past its limit, and a refused fork — a fork bomb never ends by itself, its processes retry
 * forever at the limit, so the first refusal ends the command. Calls `over` once; returns the stop.
 */
export function watchLimits(
  limits: Limits,
  setup: LimitSetup,
  cgroup: string | undefined,
  over: (hit: LimitHit) => void,
): (() => void) | undefined {
  const cpu = limits.cpu;
  const cpuDir = cgroup && cpu !== null && setup.held.cpu === 'cgroup' ? cgroup : undefined;
  const pidsHeld = setup.held.pids === 'cgroup' || setup.held.pids === 'cgroup-v1';
  if (!cpuDir && !pidsHeld) return undefined;
  const timer = setInterval(() => {
    const hit =
      (pidsHeld ? kernelHit({ ...limits, memory: null }, setup, cgroup) : undefined) ??
      (cpuDir && cpu !== null && (cpuSeconds(cpuDir) ?? 0) >= cpu
        ? ({ limit: 'cpu', value: cpu, by: 'cgroup', certain: true, effect: 'killed' } as const)
        : undefined);
    if (!hit) return;
    clearInterval(timer);
    over(hit);
  }, CPU_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** The kernel's word on the command's cgroups (read once it has exited, before they are removed). */
export function kernelHit(limits: Limits, setup: LimitSetup, cgroup: string | undefined): LimitHit | undefined {
  const hit = cgroup ? cgroupHit(cgroup, limits, setup.held) : undefined;
  if (hit || !setup.v1Pids || limits.pids === null) return hit;
  const refused = v1PidsRefused(setup.v1Pids);
  if (refused === 0) return undefined;
  return { limit: 'pids', value: limits.pids, by: 'cgroup-v1', certain: true, effect: 'fork failed', times: refused };
}

interface Ended {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

const failed = (e: Ended) => e.signal !== null || (e.exitCode !== null && e.exitCode !== 0);
const diedOf = (e: Ended, sig: NodeJS.Signals, n: number) => e.signal === sig || e.exitCode === 128 + n;

const NO_MEMORY =
  /out of memory|Cannot allocate memory|allocation failed|MemoryError|bad_alloc|ENOMEM|memory exhausted|mmap\(\) failed/i;
const NO_FORK = /fork: (retry: )?Resource temporarily unavailable|Cannot fork|spawn EAGAIN|EAGAIN.*(fork|spawn|clone)/i;

/** The limit that ended the command: the kernel's word or the CPU watch (`o.limitHit`), else a guess. */
export function limitHitOf(
  o: { limitHit?: LimitHit; limits?: { held: Held }; exitCode: number | null; signal: NodeJS.Signals | null },
  limits: Limits | undefined,
  text: string,
): LimitHit | undefined {
  if (o.limitHit) return o.limitHit;
  return limits && o.limits ? guessHit(limits, o.limits.held, o, text) : undefined;
}

/**
 * For limits held by resource limits: which one most likely ended the command. Only SIGXCPU is
 * certain (the kernel sends it for RLIMIT_CPU); a failed allocation or fork shows only in how the
 * program failed and what it printed (`text`: the output kept), so those are marked guesses.
 */
export function guessHit(limits: Limits, held: Held, ended: Ended, text: string): LimitHit | undefined {
  if (!failed(ended)) return undefined;
  const base = { by: 'rlimit', certain: false } as const;
  if (held.cpu === 'rlimit' && limits.cpu !== null && (diedOf(ended, 'SIGXCPU', 24) || /CPU time limit/.test(text)))
    return { ...base, limit: 'cpu', value: limits.cpu, certain: ended.signal === 'SIGXCPU', effect: 'killed' };
  if (held.pids === 'rlimit' && limits.pids !== null && NO_FORK.test(text))
    return { ...base, limit: 'pids', value: limits.pids, effect: 'fork failed' };
  const crashed = diedOf(ended, 'SIGSEGV', 11) || diedOf(ended, 'SIGABRT', 6);
  if (held.memory === 'rlimit' && limits.memory !== null && (NO_MEMORY.test(text) || crashed))
    return { ...base, limit: 'memory', value: limits.memory, effect: 'allocation failed' };
  return undefined;
}
