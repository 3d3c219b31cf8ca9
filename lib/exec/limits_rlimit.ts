/**
 * The budget as resource limits on the command's processes, for the limits its cgroup cannot hold
 * (no cgroup, or one without the memory or pids controller): `prlimit` (util-linux) sets them on
 * itself and execs the command, so every process the command starts inherits them. Node has no
 * setrlimit, and dash's `ulimit` has no `-u`. What each one is, and cannot do:
 * - memory: RLIMIT_DATA, not RLIMIT_AS. Since Linux 4.7 it counts private writable mappings (heap,
 *   anonymous mmap) but not address space only reserved: Node 20 reserves ~700 MB at start and does
 *   not even start under RLIMIT_AS=512M, and a wasm memory reserves 10 GB. Per process: a command of
 *   N processes may use N times it. Shared mappings and tmpfs files escape it.
 * - pids: RLIMIT_NPROC counts every process (task) of the user, not only the command's; the kernel
 *   never applies it to root. Set to the user's tasks now plus the limit; none for root.
 * - cpu: RLIMIT_CPU, per process: SIGXCPU at the limit, SIGKILL a second later.
 * Main thread.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Enforcer, LimitName, Limits } from '../core/limits.ts';

let prlimitPath: string | null | undefined;

/** prlimit by its absolute path (a command's PATH may differ from ours), found once. */
function prlimit(): string | null {
  if (prlimitPath !== undefined) return prlimitPath;
  const found = (spawnSync('/bin/sh', ['-c', 'command -v prlimit'], { encoding: 'utf8' }).stdout ?? '').trim();
  prlimitPath = found.startsWith('/') ? found : null;
  return prlimitPath;
}

const RESOURCE: Record<LimitName, { option: string; proc: string }> = {
  memory: { option: 'data', proc: 'Max data size' },
  pids: { option: 'nproc', proc: 'Max processes' },
  cpu: { option: 'cpu', proc: 'Max cpu time' },
};

/** The hard limit this process already has on a resource (a user cannot raise it), or Infinity. */
function hardLimit(procName: string): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(procName));
    const hard = line?.slice(26).trim().split(/\s+/)[1];
    return hard === undefined || hard === 'unlimited' ? Infinity : Number(hard);
  } catch {
    return Infinity;
  }
}

/** Tasks (threads included, as RLIMIT_NPROC counts them) whose real user is `uid`. */
export function userTasks(uid: number): number {
  let n = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      if (Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) === uid) n += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
    } catch {
      // exited meanwhile
    }
  }
  return n;
}

export interface RlimitPlan {
  /** The argv prefix that sets the limits, then execs the command; empty when none applies. */
  prefix: string[];
  held: Partial<Record<LimitName, Enforcer>>;
  notes: string[];
}

/** The prlimit prefix for the limits in `which`, and how each is held ('none' with a note when it cannot be). */
export function rlimitPlan(limits: Limits, which: readonly LimitName[]): RlimitPlan {
  const plan: RlimitPlan = { prefix: [], held: {}, notes: [] };
  const tool = prlimit();
  const args: string[] = [];
  for (const name of which) {
    const value = limits[name];
    if (value === null) continue;
    if (!tool) {
      plan.held[name] = 'none';
      plan.notes.push(`no ${name} limit: prlimit (util-linux) is not installed`);
      continue;
    }
    if (name === 'pids' && process.getuid?.() === 0) {
      plan.held[name] = 'none';
      plan.notes.push('no pids limit: RLIMIT_NPROC does not apply to root, and no cgroup holds one');
      continue;
    }
    let soft = name === 'pids' ? userTasks(process.getuid?.() ?? -1) + value : value;
    const hardNow = hardLimit(RESOURCE[name].proc);
    soft = Math.min(soft, hardNow);
    // CPU: SIGXCPU at the limit first (a program may clean up), SIGKILL one second later.
    const hard = name === 'cpu' ? Math.min(soft + 1, hardNow) : soft;
    args.push(`--${RESOURCE[name].option}=${soft}:${hard}`);
    plan.held[name] = 'rlimit';
  }
  if (args.length && tool) plan.prefix = [tool, ...args, '--'];
  return plan;
}
