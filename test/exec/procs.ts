/**
 * Shared by the survivor tests: commands whose children escape their process group in every usual
 * way, a scan of /proc for what is left of them, and waiting for an event without racing a clock.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ownCgroup } from '../../lib/exec/cgroup.ts';

/** A marker no other process on a shared machine has in its command line. */
export const uniqueMarker = () => `987.${process.pid}${Math.floor(Math.random() * 1e6)}`;

/** The ways a child leaves its parent's process group, each touching `<dir>/<name>` once it runs. */
export const ESCAPES = {
  setsid: (run: string) => `setsid sh -c '${run}' &`,
  double_fork: (run: string) => `( sh -c '${run}' & ) &`,
  nohup: (run: string) => `nohup setsid sh -c '${run}' >/dev/null 2>&1 &`,
  disown: (run: string) => `sh -c '${run}' & disown`,
  setsid_double_fork: (run: string) => `setsid sh -c '( sh -c "${run.replaceAll('"', '\\"')}" & )' &`,
} as const;

/**
 * A command that starts every escape (each sleeping on `marker` after it touched its file in `dir`),
 * waits until all of them run, then does `then`.
 */
export function escapingCommand(dir: string, marker: string, then: string): string {
  const names = Object.keys(ESCAPES) as (keyof typeof ESCAPES)[];
  const starts = names.map((n) => ESCAPES[n](`touch ${path.join(dir, n)}; exec sleep ${marker}`));
  const waits = names.map((n) => `[ -e ${path.join(dir, n)} ]`).join(' && ');
  return [...starts, `until ${waits}; do sleep 0.01; done`, then].join('\n');
}

/** Pids of live processes whose command line holds `marker` (zombies have none, and are not running). */
export function survivors(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) found.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** Removes what a failed test left running (by pid, nothing broader). */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** This process's command cgroups that still exist (none once every call has returned). */
export function leftoverCgroups(ownerPid = process.pid): string[] {
  const own = ownCgroup();
  if (!own.ok) return [];
  return readdirSync(own.value.dir).filter((n) => n.startsWith(`mewcode-${ownerPid}-`));
}

// Waiting for a condition is test/helpers/wait.ts's waitFor (the deadline there is only a safety net).
export { waitFor } from '../helpers/wait.ts';

export const exists = (p: string) => existsSync(p);
