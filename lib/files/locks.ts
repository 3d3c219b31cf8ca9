/**
 * Locks keyed by real path. In-process: a promise chain per path, shared by every runtime in the
 * process, so concurrent library callers serialise. Across processes: an advisory lock file created
 * exclusively under the OS temp dir (never in the user's tree), holding the owner's pid; a lock whose
 * owner is dead, or older than STALE_LOCK_MS, is broken. Other tools that honour the same files (a
 * second agent, the tests' writer processes) serialise with us. Write lane, main thread.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { errValue, okValue, type Result } from '../core/result.ts';

/** How long to wait for another process's lock before giving up. */
export const LOCK_WAIT_MS = 10_000;
/** A lock older than this is considered abandoned even if its owner seems alive. */
const STALE_LOCK_MS = 60_000;

const chains = new Map<string, Promise<unknown>>();

/** Runs `fn` with the in-process lock of `key` held. */
export async function withPathLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const prev = chains.get(key) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  chains.set(key, tail);
  try {
    return await run;
  } finally {
    if (chains.get(key) === tail) chains.delete(key);
  }
}

interface LockInfo {
  pid: number;
  host: string;
  at: number;
  path: string;
}

/**
 * The user's own lock directory: per user, as a directory one user made (0700) refused every other
 * user's locks (EACCES), and one another user made first could hold or break ours.
 */
const lockDir = () => path.join(tmpdir(), `mewcode-locks-${process.geteuid?.() ?? 'user'}`);

export const lockFileOf = (realPath: string) =>
  path.join(lockDir(), `${createHash('sha256').update(realPath).digest('hex').slice(0, 40)}.lock`);

let checked: string | undefined;

/** Makes the lock directory (0700) and accepts it only if it is the user's own, private, and no link. */
function ensureLockDir(dir: string): void {
  if (checked === dir) return;
  try {
    mkdirSync(dir, { mode: 0o700 }); // never follows a link planted at the name: EEXIST instead
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const st = lstatSync(dir);
  const me = process.geteuid?.();
  const wrong = st.isSymbolicLink()
    ? 'is a symbolic link'
    : !st.isDirectory()
      ? 'is not a directory'
      : me !== undefined && st.uid !== me
        ? `belongs to uid ${st.uid}, not to you (uid ${me})`
        : st.mode & 0o022
          ? `is writable by others (mode ${(st.mode & 0o777).toString(8)})`
          : undefined;
  if (wrong)
    throw new Error(`the lock directory ${dir} ${wrong}; remove it (rm -r ${dir}) and MewCode will make its own`);
  checked = dir;
}

/** The lock's release, or who holds it (undefined when its file could not be read). */
type LockResult = Result<() => void, LockInfo | undefined>;

/** Takes the cross-process lock of a real path, waiting up to `waitMs`. */
export async function acquireFileLock(realPath: string, waitMs = LOCK_WAIT_MS): Promise<LockResult> {
  const file = lockFileOf(realPath);
  ensureLockDir(path.dirname(file));
  const mine: LockInfo = { pid: process.pid, host: hostname(), at: Date.now(), path: realPath };
  const deadline = Date.now() + waitMs;
  let holder: LockInfo | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      mine.at = Date.now();
      writeFileSync(file, JSON.stringify(mine), { flag: 'wx', mode: 0o600 });
      return okValue(() => release(file, mine));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    holder = readLock(file);
    if (holder === undefined ? unreadableFor(file) > 1000 : abandoned(holder)) {
      breakLock(file, holder);
      continue;
    }
    if (Date.now() >= deadline) return errValue(holder);
    // Short, jittered waits: a holder usually keeps the lock for one write.
    await sleep(Math.min(2 + attempt, 20) * (0.5 + Math.random()));
  }
}

function readLock(file: string): LockInfo | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LockInfo;
  } catch {
    return undefined; // vanished, or caught between its creation and its content
  }
}

/** How long an unreadable lock file has existed (0 when it is gone): a second's grace for its writer. */
function unreadableFor(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function abandoned(h: LockInfo): boolean {
  if (Date.now() - h.at > STALE_LOCK_MS) return true;
  if (h.host !== hostname()) return false;
  try {
    process.kill(h.pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function breakLock(file: string, judged: LockInfo | undefined): void {
  // Remove it only if it is still the lock we judged: a fresh lock taken meanwhile must survive.
  const now = readLock(file);
  if (judged === undefined) {
    if (now !== undefined) return;
  } else if (now === undefined || now.pid !== judged.pid || now.at !== judged.at) {
    return;
  }
  try {
    unlinkSync(file);
  } catch {
    // someone else broke it first
  }
}

function release(file: string, mine: LockInfo): void {
  const now = readLock(file);
  if (now && now.pid === mine.pid && now.at === mine.at) {
    try {
      unlinkSync(file);
    } catch {
      // already gone
    }
  }
}
