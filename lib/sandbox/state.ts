/**
 * The sandbox's private state on the host: a directory under the OS temp dir that is ours (created
 * 0700, refused when it is a symlink, someone else's or open to others — as ssh treats ~/.ssh), a
 * synchronous cross-process lock per key inside it, and process liveness read from /proc. Sandboxed
 * commands never see it: their /tmp is a private tmpfs, and a temp dir inside the root is refused.
 * Main thread (synchronous on purpose: the sandbox's argv is built synchronously).
 */
import { lstatSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inside } from '../core/paths.ts';
import { errValue, okValue, type Result } from '../core/result.ts';

/** How long to wait for another process's lock (each holder keeps it for a few file operations). */
const LOCK_WAIT_MS = 10_000;

const uid = () => process.getuid?.() ?? 0;

/** The state directory, created on first use; refused when it is not exclusively ours or lies inside `root`. */
export function sandboxStateDir(root: string): Result<string, string> {
  const dir = path.join(tmpdir(), `mewcode-sandbox-${uid()}`);
  if (inside(dir, root) || inside(root, dir))
    return errValue(
      `the sandbox's state directory ${dir} would be inside the root the sandbox makes writable; set TMPDIR to a directory outside ${root}`,
    );
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return errValue(`cannot create ${dir}: ${errText(e)}`);
  }
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.isSymbolicLink() || st.uid !== uid() || (st.mode & 0o077) !== 0)
      return errValue(
        `${dir} is not a private directory of this user (a symlink, another owner, or open to others); remove it and run again`,
      );
  } catch (e) {
    return errValue(`cannot inspect ${dir}: ${errText(e)}`);
  }
  return okValue(dir);
}

export interface ProcessId {
  pid: number;
  /** Start time in clock ticks since boot (/proc/PID/stat field 22): tells a reused pid apart. */
  start: number;
}

/** The start time of a live (not zombie) process, or undefined when it is gone. */
function startTimeOf(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
  return Number(fields[19]);
}

export const thisProcess = (): ProcessId => ({ pid: process.pid, start: startTimeOf(process.pid) ?? 0 });

/** Whether a process is alive; with a start time, whether it is still that same process. */
export function alive(p: { pid: number; start?: number }): boolean {
  const start = startTimeOf(p.pid);
  return start !== undefined && (p.start === undefined || p.start === start);
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleepSync = (ms: number) => Atomics.wait(sleeper, 0, 0, ms);

/**
 * Runs `fn` holding the lock file `<dir>/<key>.lock` (created exclusively, holding the owner's pid and
 * start time). A lock whose owner is gone is broken. Synchronous: holders keep it for microseconds.
 */
export function withLock<T>(dir: string, key: string, fn: () => T): Result<T, string> {
  const file = path.join(dir, `${key}.lock`);
  const me = JSON.stringify(thisProcess());
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, me, { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return errValue(`cannot lock ${file}: ${errText(e)}`);
    }
    const holder = readHolder(file);
    if (holder ? !alive(holder) : ageMs(file) > 1000) {
      try {
        unlinkSync(file);
      } catch {
        // another process broke it first
      }
      continue;
    }
    if (Date.now() >= deadline)
      return errValue(`${file} stayed locked by process ${holder?.pid ?? '?'} for ${LOCK_WAIT_MS / 1000} s`);
    sleepSync(Math.min(1 + attempt, 20));
  }
  try {
    return okValue(fn());
  } finally {
    try {
      unlinkSync(file);
    } catch {
      // broken by someone who thought we were dead: nothing left to release
    }
  }
}

function readHolder(file: string): ProcessId | undefined {
  try {
    const p = JSON.parse(readFileSync(file, 'utf8')) as ProcessId;
    return typeof p.pid === 'number' ? p : undefined;
  } catch {
    return undefined; // being written: wait for it
  }
}

function ageMs(file: string): number {
  try {
    return Date.now() - lstatSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

export const errText = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message ?? String(e);
