/**
 * The budget in the command's own cgroup v2 (lib/exec/cgroup.ts), where its controllers are there:
 * `memory.max` with `memory.swap.max` 0 (a command over its memory is killed, not swapped until the
 * machine crawls), `pids.max`, and CPU time as the cgroup's `cpu.stat usage_usec` — the whole tree's
 * CPU time, which the kernel keeps for every cgroup v2 without the cpu controller — polled while it
 * runs, since `cpu.max` limits a rate, not a total. After the command, `memory.events` (`oom_kill`)
 * and `pids.events` (`max`) say whether a limit was hit. Main thread.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Enforcer, LimitHit, LimitName, Limits } from '../core/limits.ts';

/** How often CPU time is read: a command may overrun its CPU limit by this much times its cores. */
export const CPU_POLL_MS = 250;

const CONTROLLED = ['memory', 'pids'] as const;
const tried = new Set<string>();

/**
 * Enables the memory and pids controllers for the cgroups below `parent` where it has them but does
 * not pass them down. The kernel refuses (EBUSY) in a cgroup that holds processes other than the
 * root: then those limits fall back to resource limits. Tried once per parent.
 */
export function delegateControllers(parentDir: string): void {
  if (tried.has(parentDir)) return;
  tried.add(parentDir);
  const read = (f: string) => {
    try {
      return readFileSync(path.join(parentDir, f), 'utf8').split(/\s+/);
    } catch {
      return [];
    }
  };
  const available = read('cgroup.controllers');
  const passed = read('cgroup.subtree_control');
  for (const c of CONTROLLED) {
    if (!available.includes(c) || passed.includes(c)) continue;
    try {
      writeFileSync(path.join(parentDir, 'cgroup.subtree_control'), `+${c}`);
    } catch {
      // refused: the rlimit fallback holds this one
    }
  }
}

const write = (dir: string, file: string, value: string): boolean => {
  try {
    writeFileSync(path.join(dir, file), value);
    return true;
  } catch {
    return false;
  }
};

/** Writes the limits the command cgroup `dir` can hold; says which it holds (CPU: when cpu.stat reads). */
export function applyCgroupLimits(dir: string, limits: Limits): Partial<Record<LimitName, Enforcer>> {
  const held: Partial<Record<LimitName, Enforcer>> = {};
  if (limits.memory !== null && write(dir, 'memory.max', String(limits.memory))) {
    write(dir, 'memory.swap.max', '0'); // absent without swap accounting: memory.max alone still holds
    held.memory = 'cgroup';
  }
  if (limits.pids !== null && write(dir, 'pids.max', String(limits.pids))) held.pids = 'cgroup';
  if (limits.cpu !== null && cpuSeconds(dir) !== undefined) held.cpu = 'cgroup';
  return held;
}

/** CPU seconds used by every process that was ever in the cgroup, or undefined when unreadable. */
export function cpuSeconds(dir: string): number | undefined {
  try {
    const m = /^usage_usec (\d+)$/m.exec(readFileSync(path.join(dir, 'cpu.stat'), 'utf8'));
    return m ? Number(m[1]) / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

const eventCount = (dir: string, file: string, key: string): number => {
  try {
    const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(readFileSync(path.join(dir, file), 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
};

/** Whether the kernel reports a memory or pids limit hit in the cgroup (read before it is removed). */
export function cgroupHit(
  dir: string,
  limits: Limits,
  held: Partial<Record<LimitName, Enforcer>>,
): LimitHit | undefined {
  const base = { by: 'cgroup', certain: true } as const;
  const oom = held.memory === 'cgroup' ? eventCount(dir, 'memory.events', 'oom_kill') : 0;
  if (oom > 0 && limits.memory !== null)
    return { ...base, limit: 'memory', value: limits.memory, effect: 'killed', times: oom };
  const forks = held.pids === 'cgroup' ? eventCount(dir, 'pids.events', 'max') : 0;
  if (forks > 0 && limits.pids !== null)
    return { ...base, limit: 'pids', value: limits.pids, effect: 'fork failed', times: forks };
  return undefined;
}
