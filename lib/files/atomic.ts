/**
 * Atomic replacement of one file. Everything happens through a descriptor of the parent directory
 * (its `/proc/self/fd/N` path), so once the directory is checked no later symlink swap can redirect
 * the write: the temp file is created exclusively beside the target with its mode, written in full,
 * fsynced, checked by the caller (compare-and-swap) and renamed over the target, and the directory is
 * fsynced. On any error — ENOSPC included — the temp file is removed and the original is untouched.
 * Linux only (it needs /proc). Write lane, main thread.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { fdPath, openExactDir } from '../core/descriptors.ts';
import { inside } from '../core/paths.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { journalAdd, journalDone } from './journal.ts';

export interface DirHandle {
  fd: number;
  /** The directory's real path as the kernel reports it for the descriptor. */
  real: string;
  /** A path that reaches `name` inside this very directory, whatever happens to its path later. */
  at(name: string): string;
  close(): void;
}

export type WriteError = { code: 'io' | 'outside_root' | 'stale'; message: string };

/**
 * Opens a directory (a real path: the parent of a checked path) and checks it is exactly that
 * directory: O_NOFOLLOW refuses one that became a symlink, and the descriptor's real path one reached
 * through a directory on the way swapped for a symlink — outside the root, or elsewhere inside it
 * (a protected or denied directory the check did not approve).
 */
export function openDir(dir: string, root: string): Result<DirHandle, WriteError> {
  const opened = openExactDir(dir);
  if (opened.ok) return okValue(dirHandle(opened.value, dir));
  const { errno: code, real } = opened.error;
  if (code === 'MOVED' && real !== undefined && !inside(real, root))
    return errValue({
      code: 'outside_root',
      message: `the directory now resolves to ${JSON.stringify(real)}, outside the root`,
    });
  if (code === 'MOVED' || code === 'ELOOP')
    return errValue({
      code: 'stale',
      message: `the directory ${JSON.stringify(dir)} was replaced (by a symbolic link, or moved) after the path was checked; nothing was written. Try again`,
    });
  return errValue({ code: 'io', message: `cannot open the directory ${JSON.stringify(dir)} (${code})` });
}

/** A handle on the directory open as `fd`, whose real path is `real`. */
export function dirHandle(fd: number, real: string): DirHandle {
  return { fd, real, at: (name) => fdPath(fd, name), close: () => closeSync(fd) };
}

interface AtomicWrite {
  dir: DirHandle;
  name: string;
  data: Uint8Array;
  /** Mode of the file being replaced; new files get 0666 less the umask. */
  mode?: number;
  /** Owner to keep when running as root. */
  owner?: { uid: number; gid: number };
  /** Last check before the rename, with the new bytes safely on disk: an error aborts the write. */
  beforeRename?: () => WriteError | undefined;
}

/** Replaces `dir/name` with `data` atomically; the original is untouched on any failure. */
export function atomicWrite(w: AtomicWrite): WriteError | undefined {
  // Short enough for NAME_MAX whatever the target's name; dot-prefixed so walkers skip it.
  const temp = `.${w.name.slice(0, 120)}.${process.pid}.${randomBytes(4).toString('hex')}.mewcode-tmp`;
  const tempPath = w.dir.at(temp);
  const journalPath = path.join(w.dir.real, temp);
  journalAdd(journalPath);
  let fd: number | undefined;
  try {
    fd = openSync(
      tempPath,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      w.mode ?? 0o666,
    );
    let off = 0;
    while (off < w.data.length) off += writeSync(fd, w.data, off, w.data.length - off);
    if (w.mode !== undefined) fchmodSync(fd, w.mode); // the umask must not narrow or widen a kept mode
    if (w.owner && process.getuid?.() === 0) fchownSync(fd, w.owner.uid, w.owner.gid);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    const refused = w.beforeRename?.();
    if (refused) {
      removeTemp(tempPath);
      return refused;
    }
    renameSync(tempPath, w.dir.at(w.name));
    fsyncSync(w.dir.fd);
    return undefined;
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    removeTemp(tempPath);
    const code = errno(e);
    const why = code === 'ENOSPC' ? 'no space left on device' : code === 'EDQUOT' ? 'disk quota exceeded' : code;
    return { code: 'io', message: `${why}; the original file is intact` };
  } finally {
    journalDone(journalPath);
  }
}

function removeTemp(p: string): void {
  try {
    unlinkSync(p);
  } catch {
    // never created, or already gone
  }
}

const errno = (e: unknown) => (e as NodeJS.ErrnoException).code ?? String(e);
