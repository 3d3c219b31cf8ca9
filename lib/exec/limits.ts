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

export type Held = Partial<Record<LimitName, Enforcer>>;

export interface LimitSetup {
  /** Goes in front of the command's argv, after any containment wrapper. */
  prefix: string[];
  held: Held;
  notes: string[];
}

/** Sets the limits up for one command: in its cgroup (made, not yet entered) what it can hold, the rest by prlimit. */
export function setUpLimits(limits: Limits, cgroup: { dir: string; parentDir: string } | undefined): LimitSetup {
  let held: Held = {};
  if (cgroup) {
    delegateControllers(cgroup.parentDir);
    held = applyCgroupLimits(cgroup.dir, limits);
  }
  const rest = LIMIT_NAMES.filter((n) => limits[n] !== null && held[n] === undefined);
  const plan = rlimitPlan(limits, rest);
  return { prefix: plan.prefix, held: { ...held, ...plan.held }, notes: plan.notes };
}

/** Polls the cgroup's CPU time and calls `over` once when it passes the limit; returns the stop. */
export function watchCpu(dir: string, seconds: number, over: () => void): () => void {
  const timer = setInterval(() => {
    if ((cpuSeconds(dir) ?? 0) < seconds) return;
    clearInterval(timer);
    over();
  }, CPU_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** The kernel's word on the cgroup's limits (read before it is removed). */
export { cgroupHit };

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
