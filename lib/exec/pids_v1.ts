/**
 * A pids limit from the cgroup v1 `pids` hierarchy, for machines that still mount one (hybrid
 * cgroups: the v2 hierarchy is there but without the pids controller, which v1 holds). It matters
 * as root: the kernel never applies RLIMIT_NPROC to root, so without a pids controller nothing would
 * stop a fork bomb. The command's first process joins a fresh `mewcode-…` cgroup under ours with
 * `pids.max` set; `pids.events` says whether a fork was refused. Only processes are limited and
 * counted here; killing still goes through the containment (lib/exec/containment.ts). Main thread.
 */
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Cgroup, createCommandCgroup, signalAll, sweepStaleCgroups } from './cgroup.ts';

let base: Cgroup | null | undefined;

/** Our own cgroup in a writable v1 pids hierarchy, or null (probed once: a cgroup made and removed). */
function v1PidsBase(): Cgroup | null {
  if (base !== undefined) return base;
  base = null;
  try {
    const own = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .map((l) => l.split(':'))
      .find((f) => f[1]?.split(',').includes('pids'))?.[2];
    const mount = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((l) => l.split(' - '))
      .find(([, right]) => right?.startsWith('cgroup ') && right.split(' ')[2]?.split(',').includes('pids'));
    const fields = mount?.[0]?.split(' ') ?? [];
    const rel = own === undefined ? undefined : path.posix.relative(fields[3] ?? '/', own);
    if (rel === undefined || rel.startsWith('..') || fields[4] === undefined) return null;
    const probe = path.join(fields[4], rel, `mewcode-probe-${process.pid}`);
    mkdirSync(probe);
    rmdirSync(probe);
    base = { dir: path.join(fields[4], rel), path: own as string };
  } catch {
    // no v1 pids hierarchy, or not ours to write
  }
  return base;
}

/** The argv prefix that moves the command into a new v1 pids cgroup of `max` processes, and its directory. */
export function v1PidsLimit(max: number): { dir: string; prefix: string[] } | undefined {
  const parent = v1PidsBase();
  if (!parent) return undefined;
  const made = createCommandCgroup(parent);
  if (!made.ok) return undefined;
  try {
    writeLimit(made.value.dir, max);
  } catch {
    void removeV1Pids(made.value.dir);
    return undefined;
  }
  const join = 'echo 0 > "$1/cgroup.procs" || exit 125; shift; exec "$@"';
  return { dir: made.value.dir, prefix: ['/bin/sh', '-c', join, 'sh', made.value.dir] };
}

/** `r+`: never creates the file, which a cgroup directory always has. */
const writeLimit = (dir: string, max: number) => writeFileSync(path.join(dir, 'pids.max'), String(max), { flag: 'r+' });

/** Forks the kernel refused in the cgroup because of its limit. */
export function v1PidsRefused(dir: string): number {
  try {
    return Number(/^max (\d+)$/m.exec(readFileSync(path.join(dir, 'pids.events'), 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Removes the v1 pids cgroups of runtimes that are gone (one that exited mid-command leaves its own). */
export async function sweepStaleV1Pids(): Promise<void> {
  const parent = v1PidsBase();
  if (parent) await sweepStaleCgroups(parent);
}

/** Kills what is left in it (the containment normally has) and removes it; at most 5 s of retries. */
export async function removeV1Pids(dir: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    try {
      rmdirSync(dir);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    }
    signalAll(dir, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 10));
  }
}
