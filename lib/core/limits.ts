/**
 * A command's budget besides its wall time and output bytes: memory, processes and CPU time. What a
 * budget is, its defaults, the strict spellings that flags, settings and the library's option share
 * (`1G`, `256`, `60s`, `none`), and what a command that hit one reports. Enforcing them is
 * lib/exec/limits_*.ts. Plain data; no I/O.
 */
import { errValue, okValue, type Result } from './result.ts';

export const LIMIT_NAMES = ['memory', 'pids', 'cpu'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/** Bytes of memory, processes, CPU seconds; null: no limit. */
export type Limits = Record<LimitName, number | null>;

/**
 * Memory and processes keep a runaway or a fork bomb from taking the machine down and still fit a
 * large build or test run. No CPU-time default: a foreground command is already bounded by its wall
 * timeout (at most 10 minutes), and CPU time grows with cores — a build using 8 cores for a minute of
 * wall time uses 8 — so any default short enough to matter would kill honest parallel builds.
 */
export const DEFAULT_LIMITS: Readonly<Limits> = { memory: 4 * 1024 ** 3, pids: 1024, cpu: null };

/** Below these not even the shell and its wrappers start, so such a value is a mistake. */
export const MIN_LIMITS: Readonly<Record<LimitName, number>> = { memory: 16 * 1024 ** 2, pids: 8, cpu: 1 };

/**
 * What enforced a limit: the command's cgroup v2, a cgroup of the v1 pids hierarchy (hybrid machines),
 * a resource limit on its processes, or nothing here.
 */
export type Enforcer = 'cgroup' | 'cgroup-v1' | 'rlimit' | 'none';

/** The limit that ended (or cut) a command. `certain`: the kernel said so, not a guess from the exit and output. */
export interface LimitHit {
  limit: LimitName;
  /** The limit's value: bytes, processes or seconds. */
  value: number;
  by: Enforcer;
  certain: boolean;
  /** What the command met: it was killed, or a fork or an allocation failed. */
  effect: 'killed' | 'fork failed' | 'allocation failed';
  /** How many times, when the kernel counted (processes OOM-killed, forks refused). */
  times?: number;
}

const UNITS: Record<string, number> = { K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };
const SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600 };

const spelling: Record<LimitName, string> = {
  memory: 'a size with a unit (512M, 4G; K, M, G, T are powers of 1024) or none',
  pids: 'a whole number of processes (256) or none',
  cpu: 'CPU seconds with a unit (60s, 5m, 1h) or none',
};

/** Parses one limit as flags and settings spell it; the error says what is accepted. */
export function parseLimit(name: LimitName, text: string): Result<number | null, string> {
  const bad = () => errValue(`${name} limit must be ${spelling[name]}, not ${JSON.stringify(text)}`);
  if (text === 'none') return okValue(null);
  let value: number;
  if (name === 'memory') {
    const m = /^([1-9][0-9]*)([KMGT])(?:i?B)?$/.exec(text);
    if (!m) return bad();
    value = Number(m[1]) * (UNITS[m[2] as string] as number);
  } else if (name === 'cpu') {
    const m = /^([1-9][0-9]*)([smh])$/.exec(text);
    if (!m) return bad();
    value = Number(m[1]) * (SECONDS[m[2] as string] as number);
  } else {
    if (!/^[1-9][0-9]*$/.test(text)) return bad();
    value = Number(text);
  }
  return checkLimit(name, value);
}

/** A limit given as a number (the library's option, a settings file's `pids`): in range, or why not. */
export function checkLimit(name: LimitName, value: number | null): Result<number | null, string> {
  if (value === null) return okValue(null);
  if (!Number.isSafeInteger(value)) return errValue(`${name} limit must be a whole number or null, not ${value}`);
  if (value < MIN_LIMITS[name])
    return errValue(`${name} limit ${value} is below the least that works, ${showLimit(name, MIN_LIMITS[name])}`);
  return okValue(value);
}

/** A limit for people: `512 MiB`, `256`, `60 s`. */
export function showLimit(name: LimitName, value: number): string {
  if (name === 'pids') return String(value);
  if (name === 'cpu') return `${value} s`;
  for (const [unit, size] of [
    ['TiB', UNITS.T],
    ['GiB', UNITS.G],
    ['MiB', UNITS.M],
    ['KiB', UNITS.K],
  ] as const) {
    if (value >= (size as number) && value % (size as number) === 0) return `${value / (size as number)} ${unit}`;
  }
  return `${value} bytes`;
}

/** The tighter of two budgets, limit by limit (null is no limit, so anything is tighter). */
export function tighter(a: Readonly<Limits>, b: Partial<Limits>): Limits {
  const out = { ...a };
  for (const name of LIMIT_NAMES) {
    const v = b[name];
    if (v === undefined || v === null) continue;
    const cur = out[name];
    out[name] = cur === null ? v : Math.min(cur, v);
  }
  return out;
}
