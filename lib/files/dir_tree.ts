/**
 * Directories made, written into and removed through descriptors, for the writes that create or
 * delete more than one file: missing parent directories (write_file, apply_patch) and a skill's
 * tree (install_skill). Each component is opened relative to the directory before it, with
 * O_NOFOLLOW, starting from the root checked to be itself; a missing one is created there
 * (`mkdir` never follows a symlink at its end) and then opened the same way. So a directory on the
 * way swapped for a symlink stops the write instead of redirecting it outside the root, and a tree
 * removed entry by entry through descriptors cannot be led into deleting files elsewhere.
 * Write lane, main thread.
 */
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { fdPath, openExactDir, openIn, realPathOf } from '../core/descriptors.ts';
import { inside } from '../core/paths.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { type DirHandle, dirHandle, type WriteError } from './atomic.ts';

const DIR = constants.O_RDONLY | constants.O_DIRECTORY;

/**
 * Opens `dir` (a real path inside `root`) one component at a time from the root, creating the
 * missing ones when `create` is set; every component must be a real directory, never a symlink.
 * Each directory this call created is pushed on `made` (parents first), for the journal to remove on undo.
 */
export function openDirFrom(
  root: string,
  dir: string,
  create: boolean,
  made?: string[],
): Result<DirHandle, WriteError> {
  if (!inside(dir, root))
    return errValue({ code: 'outside_root', message: `${JSON.stringify(dir)} is outside the root` });
  const top = openExactDir(root);
  if (!top.ok) return errValue({ code: 'io', message: `cannot open the root (${top.error.errno})` });
  return descend(top.value, root, dir, create, made);
}

/** Makes the directory `rel` (`/`-separated, checked names) inside `base`, and its missing parents. */
export function makeDirs(base: DirHandle, rel: string): Result<DirHandle, WriteError> {
  // A second descriptor on the same directory (opening the descriptor's own /proc path), for descend to use up.
  const again = openIn(base.fd, '.', DIR);
  if (!again.ok)
    return errValue({ code: 'io', message: `cannot reopen ${JSON.stringify(base.real)} (${again.error.errno})` });
  return descend(again.value, base.real, path.join(base.real, ...rel.split('/')), true);
}

/** From the directory open as `fd` (whose real path is `from`, and which it closes) down to `dir`. */
function descend(
  fd: number,
  from: string,
  dir: string,
  create: boolean,
  made?: string[],
): Result<DirHandle, WriteError> {
  const names = dir === from ? [] : path.relative(from, dir).split(path.sep);
  for (const [i, name] of names.entries()) {
    const onMade = made && (() => made.push(path.join(from, ...names.slice(0, i + 1))));
    const next = create ? openOrMake(fd, name, onMade) : openIn(fd, name, DIR);
    // O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR: tell a symlink from a file.
    const link = !next.ok && next.error.errno === 'ENOTDIR' && isLink(fdPath(fd, name));
    closeSync(fd);
    if (!next.ok) {
      const shown = JSON.stringify(names.slice(0, i + 1).join('/'));
      const code = next.error.errno;
      if (code === 'ELOOP' || link)
        return errValue({
          code: 'stale',
          message: `${shown} became a symbolic link after the path was checked; nothing was written. Try again`,
        });
      if (code === 'ENOTDIR')
        return errValue({
          code: 'io',
          message: `${shown} is not a directory (or it was being replaced); nothing was written`,
        });
      return errValue({ code: 'io', message: `cannot open or create the directory ${shown} (${code})` });
    }
    fd = next.value;
  }
  // Reached through checked descriptors only; a last look guards against one moved meanwhile.
  const real = realPathOf(fd);
  if (real !== dir) {
    closeSync(fd);
    return errValue({
      code: real !== undefined && !inside(real, from) ? 'outside_root' : 'stale',
      message: `the directory ${JSON.stringify(dir)} was moved while it was being opened; nothing was written. Try again`,
    });
  }
  return okValue(dirHandle(fd, dir));
}

/** Opens the directory `name` in `parentFd`, creating it first when it does not exist. */
function openOrMake(parentFd: number, name: string, onMade?: () => void) {
  const opened = openIn(parentFd, name, DIR);
  if (opened.ok || opened.error.errno !== 'ENOENT') return opened;
  try {
    mkdirSync(fdPath(parentFd, name));
    onMade?.();
  } catch (e) {
    // EEXIST: made by someone else meanwhile (or a symlink planted there): the open decides.
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return errValue({ errno: errnoOf(e) });
  }
  return openIn(parentFd, name, DIR);
}

/** Creates the new file `name` in `dir` with `data` (never through a symlink, never over a file). */
export function writeNewFile(dir: DirHandle, name: string, data: Uint8Array): void {
  const fd = openIn(dir.fd, name, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666);
  if (!fd.ok) throw Object.assign(new Error(`cannot create ${name} (${fd.error.errno})`), { code: fd.error.errno });
  try {
    let off = 0;
    while (off < data.length) off += writeSync(fd.value, data, off, data.length - off);
  } finally {
    closeSync(fd.value);
  }
}

/** Renames the entry `from` of `dir` to `to` in the same directory (rename never follows a symlink). */
export function renameIn(dir: DirHandle, from: string, to: string): void {
  renameSync(dir.at(from), dir.at(to));
}

/**
 * Removes the entry `name` of `dir` and, if it is a directory, everything under it: each directory
 * is opened through its parent's descriptor with O_NOFOLLOW, so a directory swapped for a symlink
 * meanwhile is unlinked as a link, never entered. Best effort: what cannot be removed stays.
 */
export function removeTree(dirFd: number, name: string): void {
  try {
    unlinkSync(fdPath(dirFd, name));
    return; // a file or a symlink
  } catch (e) {
    const code = errnoOf(e);
    if (code !== 'EISDIR' && code !== 'EPERM') return; // gone already, or not ours to remove
  }
  const sub = openIn(dirFd, name, DIR);
  if (!sub.ok) return;
  try {
    for (const entry of readdirSync(fdPath(sub.value))) removeTree(sub.value, entry);
  } catch {
    // unreadable: the rmdir below fails and leaves it
  } finally {
    closeSync(sub.value);
  }
  try {
    rmdirSync(fdPath(dirFd, name));
  } catch {
    // not empty (something was added meanwhile) or already gone
  }
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException).code ?? String(e);

/**
 * Removes the directory `dir` (a real path inside `root`) if it is empty, through its parent's
 * descriptor; whether it is gone (false: not empty, or not there, or not a directory).
 */
export function removeEmptyDir(root: string, dir: string): boolean {
  const parent = openDirFrom(root, path.dirname(dir), false);
  if (!parent.ok) return false;
  try {
    rmdirSync(parent.value.at(path.basename(dir)));
    return true;
  } catch {
    return false;
  } finally {
    parent.value.close();
  }
}
