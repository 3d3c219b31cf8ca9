/**
 * Opening what was checked, not whatever the name leads to by the time it is opened. A checked path
 * is a real path (no symlink on it), so what a descriptor really refers to — the kernel's own path
 * for it, `/proc/<pid>/fd/N` read as a link — must be exactly that path: anything else means a
 * component was swapped for a symlink, or moved, since the check, and nothing is read through it.
 * Once a directory is verified, its entries are reached through its descriptor
 * (`/proc/<pid>/fd/N/name`, the openat of a language without openat) with O_NOFOLLOW, so they are
 * entries of that very directory whatever happens to its path. Linux only (it needs /proc); every
 * lane and every worker thread (descriptors belong to the process).
 */
import { closeSync, constants, openSync, readlinkSync } from 'node:fs';
import { errValue, okValue, type Result } from './result.ts';

/** Why an open was refused: the operating system's code, or MOVED when it reached somewhere else. */
interface OpenRefusal {
  errno: string;
  /** Where the descriptor really led, for MOVED. */
  real?: string;
}

let fdDir: string | undefined;
/**
 * `/proc/<pid>/fd/`: one link fewer to resolve than `/proc/self/fd/` on every open (it costs on a
 * search that opens every file of a tree); `/proc/self` when /proc belongs to another PID namespace.
 */
function fdDirectory(): string {
  if (fdDir === undefined) {
    let self = '';
    try {
      self = readlinkSync('/proc/self');
    } catch {
      // no /proc: every open through a descriptor fails, and says so
    }
    fdDir = self === String(process.pid) ? `/proc/${process.pid}/fd/` : '/proc/self/fd/';
  }
  return fdDir;
}

/** The path that reaches what `fd` refers to, or the entry `name` of that directory. */
export function fdPath(fd: number, name?: string): string {
  return name === undefined ? `${fdDirectory()}${fd}` : `${fdDirectory()}${fd}/${name}`;
}

/** The kernel's path for what `fd` refers to (" (deleted)" appended once it was removed). */
export function realPathOf(fd: number): string | undefined {
  try {
    return readlinkSync(fdPath(fd));
  } catch {
    return undefined;
  }
}

/**
 * The descriptors opened here and not yet closed through `closeFd`, while work runs under the
 * watchdog (core/watchdog.ts): a stop skips the work's `finally`, so whoever ran it closes these.
 * Undefined otherwise: nothing is tracked outside such a run.
 */
let tracked: Set<number> | undefined;

/**
 * Tracks the descriptors opened from now (by `openExact`, `openIn`, `openTracked`) until
 * `endTracking`, and returns them: those still open are the ones the work did not close.
 */
export function trackOpens(): Set<number> {
  tracked = new Set();
  return tracked;
}

export function endTracking(): void {
  tracked = undefined;
}

/** Closes `fd`, opened by one of this module's opens: every close of those goes through here. */
export function closeFd(fd: number): void {
  tracked?.delete(fd);
  closeSync(fd);
}

/** Closes what a stopped run left open (`trackOpens`'s set); a descriptor already gone is skipped. */
export function closeLeft(left: Set<number>): void {
  for (const fd of left) {
    try {
      closeSync(fd);
    } catch {
      // closed meanwhile
    }
  }
  left.clear();
}

/** `openSync` whose descriptor is tracked as `openExact`'s are (close it with `closeFd`). */
export function openTracked(at: string, flags: number): number {
  const fd = openSync(at, flags);
  tracked?.add(fd);
  return fd;
}

const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException).code ?? String(e);

/**
 * Opens `abs` (a real path) without following a symlink at its end, then checks that what was
 * opened is exactly `abs`: a directory on the way swapped for a symlink, or the file moved, is
 * refused (MOVED) before a byte is read.
 */
export function openExact(abs: string, flags: number): Result<number, OpenRefusal> {
  let fd: number;
  try {
    fd = openTracked(abs, flags | constants.O_NOFOLLOW);
  } catch (e) {
    return errValue({ errno: errnoOf(e) });
  }
  const real = realPathOf(fd);
  if (real === abs) return okValue(fd);
  closeFd(fd);
  return errValue({ errno: 'MOVED', ...(real !== undefined ? { real } : {}) });
}

/** `openExact` for a directory to list or to open entries through. */
export function openExactDir(abs: string): Result<number, OpenRefusal> {
  return openExact(abs, constants.O_RDONLY | constants.O_DIRECTORY);
}

/**
 * Flags to open a directory only to reach what is in it (through `fdPath`) or list it through its
 * path: O_PATH where its value is known (Linux: x64, arm, arm64), which skips the read-permission and
 * open work of a full open (measured: 10% of a walk's directory opens). With O_NOFOLLOW and
 * O_DIRECTORY, a symlink in its place still fails (ENOTDIR), as with a full open.
 */
export const DIR_ONLY =
  (['x64', 'arm', 'arm64'].includes(process.arch) && process.platform === 'linux' ? 0o10000000 : constants.O_RDONLY) |
  constants.O_DIRECTORY;

/**
 * Opens the entry `name` of the directory open as `dirFd`, never following a symlink: the entry is
 * in that directory whatever has happened to the directory's path. `name` is one component.
 */
export function openIn(dirFd: number, name: string, flags: number, mode?: number): Result<number, OpenRefusal> {
  try {
    const fd = openSync(fdPath(dirFd, name), flags | constants.O_NOFOLLOW, mode);
    tracked?.add(fd);
    return okValue(fd);
  } catch (e) {
    return errValue({ errno: errnoOf(e) });
  }
}
