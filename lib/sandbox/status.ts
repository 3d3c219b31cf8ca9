/**
 * When a sandbox is gone. The command's launcher writes its own pid to a status file before it
 * becomes bubblewrap (`exec`), and bubblewrap writes to the same file (`--json-status-fd`, a
 * descriptor the sandboxed command does not inherit) the host pid of the sandbox's first process and,
 * once it has reaped it, its exit code. That first process is PID 1 of the sandbox's PID namespace:
 * when it has exited, the kernel has killed and reaped every other process in it, so nothing holds
 * the sandbox's mounts any more. The runtime polls its own commands' status files and releases each
 * use when it is gone, and at exit releases those already gone; another process's stale uses are
 * judged the same way by the next sandboxed command in that root. Main thread.
 */
import { readFileSync } from 'node:fs';
import { alive, type ProcessId } from './state.ts';

/** One sandboxed command that may have the placeholders mounted. */
export interface Use {
  id: string;
  owner: ProcessId;
  /** The status file of this command. */
  status: string;
  created: number;
}

interface Status {
  shellPid?: number;
  childPid?: number;
  exitCode?: number;
}

/** A use whose launcher never wrote (its owner alive) counts as gone only after this long. */
const NEVER_STARTED_MS = 10 * 60_000;
const POLL_MS = 50;

function readStatus(file: string): Status {
  const s: Status = {};
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return s;
  }
  for (const line of text.split('\n')) {
    try {
      const j = JSON.parse(line) as Record<string, unknown>;
      if (typeof j['shell-pid'] === 'number' && s.shellPid === undefined) s.shellPid = j['shell-pid'];
      if (typeof j['child-pid'] === 'number' && s.childPid === undefined) s.childPid = j['child-pid'];
      if (typeof j['exit-code'] === 'number') s.exitCode = j['exit-code'];
    } catch {
      // a line being written
    }
  }
  return s;
}

/** True when nothing of this command's sandbox can still be running. */
export function sandboxGone(use: Use): boolean {
  const s = readStatus(use.status);
  if (s.exitCode !== undefined) return true;
  if (s.shellPid !== undefined)
    return !alive({ pid: s.shellPid }) && (s.childPid === undefined || !alive({ pid: s.childPid }));
  // Never launched. The launcher writes before bubblewrap starts, and a bubblewrap started after its
  // placeholders went fails on the missing bind source, so this is safe once nobody can launch it.
  return !alive(use.owner) || Date.now() - use.created > NEVER_STARTED_MS;
}

const watched = new Map<string, { use: Use; release: () => void }>();
let timer: NodeJS.Timeout | undefined;
let exitHook = false;

/** Calls `release` once the command's sandbox is gone (polled; at process exit, if it is gone by then). */
export function releaseWhenGone(use: Use, release: () => void): void {
  watched.set(use.id, { use, release });
  if (!exitHook) {
    exitHook = true;
    process.on('exit', tick);
  }
  timer ??= setInterval(tick, POLL_MS).unref();
}

function tick(): void {
  for (const [id, w] of watched) {
    if (!sandboxGone(w.use)) continue;
    watched.delete(id);
    try {
      w.release();
    } catch {
      // a release that failed leaves the use to be pruned by the next command in this root
    }
  }
  if (watched.size === 0 && timer) {
    clearInterval(timer);
    timer = undefined;
  }
}
