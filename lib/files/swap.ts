/**
 * Compare-and-swap of one whole file, for the journal's restores (lib/history/rewind.ts): under the
 * same locks as every write (in-process, then cross-process), the file's current bytes and mode are
 * compared with what the journal last saw there; only when they match (or `force`) is it replaced
 * by the image asked for — atomically, through its directory's descriptor, with the mode set
 * exactly — or deleted. Any bytes, not only text: a restore puts back what was there. Write lane,
 * main thread.
 */
import { createHash } from 'node:crypto';
import { type BigIntStats, closeSync, constants, fstatSync, openSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { lstatBigIfAny, lstatIfAny } from '../core/lstat_if_any.ts';
import { readFdRange } from '../core/read_fd.ts';
import { atomicWrite, type DirHandle, openDir, type WriteError } from './atomic.ts';
import type { ChangeSink, FileImage } from './changes.ts';
import { openDirFrom } from './dir_tree.ts';
import { acquireFileLock, withPathLock } from './locks.ts';

/** A file's state by digest: sha256 of its bytes, and its mode; `undefined` where one is expected: absent. */
export interface ImageRef {
  sha256: string;
  mode: number;
}

export interface SwapTarget {
  /** Real path inside the root. */
  real: string;
  /** What the file must be now for the swap to go ahead. */
  expect: ImageRef | undefined;
  /** What to make it. */
  to: FileImage | undefined;
}

export type SwapOutcome =
  | { status: 'done' }
  /** It already was what was asked for: nothing written. */
  | { status: 'same' }
  /** Not what the journal expects: left untouched. `current` is undefined when absent or unreadable. */
  | { status: 'conflict'; current: FileImage | undefined; why?: string }
  | { status: 'failed'; message: string };

interface SwapOptions {
  force: boolean;
  /** Told of the change made and the directories created (so the restore is journaled too). */
  sink?: ChangeSink;
  /** Told of every path written or deleted (the ledger, which tells the search index). */
  onChange?: (real: string) => void;
}

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

const sameImage = (a: FileImage | undefined, b: ImageRef | undefined) =>
  a === undefined || b === undefined ? a === b : a.mode === b.mode && sha256(a.bytes) === b.sha256;

/** Swaps one file, holding its locks for the length of the swap. */
export function swapFile(root: string, t: SwapTarget, o: SwapOptions): Promise<SwapOutcome> {
  return withPathLock(t.real, async () => {
    const lock = await acquireFileLock(t.real);
    if (!lock.ok) return { status: 'failed', message: `locked by another writer (process ${lock.error?.pid ?? '?'})` };
    try {
      return swapHeld(root, t, o);
    } finally {
      lock.value();
    }
  });
}

function swapHeld(root: string, t: SwapTarget, o: SwapOptions): SwapOutcome {
  const made: string[] = [];
  const parent = path.dirname(t.real);
  const opened = t.to ? openDirFrom(root, parent, true, made) : openDir(parent, root);
  for (const d of made) o.sink?.dir(d);
  if (!opened.ok) {
    // Nothing to delete where even the directory is gone.
    if (!t.to && !exists(t.real)) return t.expect ? conflict(undefined, o, t) : { status: 'same' };
    return { status: 'failed', message: opened.error.message };
  }
  const dir = opened.value;
  try {
    const name = path.basename(t.real);
    const read = readRaw(dir, name);
    if ('why' in read) return { status: 'conflict', current: undefined, why: read.why };
    const current = read.image;
    if (sameImage(current, t.to && { sha256: sha256(t.to.bytes), mode: t.to.mode })) return { status: 'same' };
    if (!o.force && !sameImage(current, t.expect)) return { status: 'conflict', current };
    const err = t.to ? write(dir, name, t.to, read.stat) : remove(dir, name, read.stat);
    if (err) return { status: 'failed', message: err.message };
    o.sink?.file(t.real, current, t.to);
    o.onChange?.(t.real);
    return { status: 'done' };
  } finally {
    dir.close();
  }
}

const conflict = (current: FileImage | undefined, o: SwapOptions, t: SwapTarget): SwapOutcome =>
  o.force ? { status: 'same' } : { status: 'conflict', current, ...(t.expect ? { why: 'it was deleted' } : {}) };

const exists = (p: string) => lstatIfAny(p) !== undefined;

type Raw = { image: FileImage | undefined; stat: BigIntStats | undefined } | { why: string };

/** The file's bytes and mode, never through a symlink; absent is an image too. */
function readRaw(dir: DirHandle, name: string): Raw {
  let fd: number;
  try {
    fd = openSync(dir.at(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { image: undefined, stat: undefined };
    return { why: code === 'ELOOP' ? 'it is a symbolic link now' : `it cannot be opened (${code})` };
  }
  try {
    const stat = fstatSync(fd, { bigint: true });
    if (!stat.isFile()) return { why: 'it is not a regular file now' };
    const bytes = readFdRange(fd, 0, Number(stat.size));
    return { image: { bytes, mode: Number(stat.mode & 0o7777n) }, stat };
  } finally {
    closeSync(fd);
  }
}

/** The compare-and-swap's last look, with the new bytes on disk: still the file that was compared. */
function unchanged(dir: DirHandle, name: string, was: BigIntStats | undefined): WriteError | undefined {
  const now = lstatBigIfAny(dir.at(name));
  const same =
    was === undefined
      ? now === undefined
      : now?.isFile() &&
        now.ino === was.ino &&
        now.size === was.size &&
        now.mtimeNs === was.mtimeNs &&
        now.ctimeNs === was.ctimeNs;
  return same ? undefined : { code: 'stale', message: 'it changed while it was being restored; it was left as it is' };
}

function write(dir: DirHandle, name: string, to: FileImage, was: BigIntStats | undefined): WriteError | undefined {
  return atomicWrite({ dir, name, data: to.bytes, mode: to.mode, beforeRename: () => unchanged(dir, name, was) });
}

function remove(dir: DirHandle, name: string, was: BigIntStats | undefined): WriteError | undefined {
  const err = unchanged(dir, name, was);
  if (err) return err;
  try {
    unlinkSync(dir.at(name));
    return undefined;
  } catch (e) {
    return { code: 'io', message: `it cannot be deleted (${(e as NodeJS.ErrnoException).code})` };
  }
}
