/**
 * A process's descendants from /proc/<pid>/task/<tid>/children, for commands held by a PID namespace
 * (unshare, bubblewrap) where no cgroup is available: signalling the namespace's init instead of the
 * wrapper we spawned makes the wrapper exit only after the kernel has killed the whole namespace — the
 * init's exit waits for that — while killing the wrapper first would let it exit before. Main thread.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The direct children of `pid` (any of its threads'); empty when it is gone or /proc cannot tell. */
export function childrenOf(pid: number): number[] {
  const kids: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
      for (const p of text.split(' ')) if (p.trim()) kids.push(Number(p));
    }
  } catch {
    // exited meanwhile, or a kernel without CONFIG_PROC_CHILDREN
  }
  return kids;
}

/** Every descendant of the given processes, the processes included (orphans in a PID namespace are reparented to its init, so none is lost). */
export function withDescendants(pids: readonly number[]): number[] {
  const seen = new Set<number>();
  const queue = [...pids];
  while (queue.length) {
    const p = queue.shift() as number;
    if (seen.has(p)) continue;
    seen.add(p);
    queue.push(...childrenOf(p));
  }
  return [...seen];
}

/** Signals each pid; a process that is already gone is fine. */
export function signalEach(pids: readonly number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // exited meanwhile
    }
  }
}
