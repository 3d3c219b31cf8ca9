/**
 * Directory listings, each read through a descriptor checked to be exactly the directory asked for
 * (`openExactDir`): a directory of the tree swapped for a symlink since it was listed in its parent
 * is not listed, so no name from wherever the symlink points comes back, and the walker opens the
 * entries through that same descriptor. Listings are kept between searches of a warm runtime (one
 * cache per thread), each revalidated by an fstat of the opened directory on every use: adding,
 * removing or renaming an entry changes the directory's mtime, so an unchanged (device, inode, mtime,
 * ctime) means an unchanged listing of this very directory. A listing read within RACY_MS of its
 * directory's last change is not kept — the same-timestamp race git calls "racy git": an entry added
 * within the timestamp granularity would not move the mtime.
 */
import { closeSync, type Dirent, fstatSync, readdirSync } from 'node:fs';
import { fdPath, openExactDir } from '../core/descriptors.ts';

export type EntryKind = 'dir' | 'file' | 'symlink' | 'other';
export interface DirEntry {
  name: string;
  kind: EntryKind;
}

/** A directory open for a walk: its checked descriptor (the caller closes it) and its entries by name. */
export interface OpenedDir {
  fd: number;
  entries: DirEntry[];
}

/** A listing younger than this (ms) is read afresh every time. */
export const RACY_MS = 2000;
/** Directories remembered per thread; past this the cache starts over. */
export const MAX_CACHED_DIRS = 250_000;

interface Cached {
  dev: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  entries: DirEntry[];
}

const cache = new Map<string, Cached>();
let enabled = true;

/** Turns the cache off (and empties it): for callers that want every walk to hit the disk. */
export function setDirCache(on: boolean): void {
  enabled = on;
  cache.clear();
}

/**
 * Opens the directory `abs` (a real path), checked to be exactly that directory, and lists it
 * through the descriptor; undefined when it is gone, unreadable, or no longer that directory.
 */
export function openListed(abs: string): OpenedDir | undefined {
  const opened = openExactDir(abs);
  if (!opened.ok) {
    cache.delete(abs);
    return undefined; // vanished, unreadable or swapped while walking: carry on, as ripgrep does
  }
  const fd = opened.value;
  if (!enabled) return { fd, entries: read(fd) };
  const st = fstatSync(fd);
  const hit = cache.get(abs);
  if (hit && hit.ino === st.ino && hit.dev === st.dev && hit.mtimeMs === st.mtimeMs && hit.ctimeMs === st.ctimeMs)
    return { fd, entries: hit.entries };
  const entries = read(fd);
  if (Date.now() - st.mtimeMs > RACY_MS && Date.now() - st.ctimeMs > RACY_MS) {
    if (cache.size >= MAX_CACHED_DIRS) cache.clear();
    cache.set(abs, { dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, entries });
  } else {
    cache.delete(abs);
  }
  return { fd, entries };
}

/** The entries of a directory sorted by name, or [] when it cannot be listed (see `openListed`). */
export function listDir(abs: string): DirEntry[] {
  const opened = openListed(abs);
  if (!opened) return [];
  closeSync(opened.fd);
  return opened.entries;
}

function read(fd: number): DirEntry[] {
  let dirents: Dirent[];
  try {
    dirents = readdirSync(fdPath(fd), { withFileTypes: true });
  } catch {
    return [];
  }
  return dirents
    .map((d) => ({ name: d.name, kind: kindOf(d) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const kindOf = (d: Dirent): EntryKind =>
  d.isDirectory() ? 'dir' : d.isFile() ? 'file' : d.isSymbolicLink() ? 'symlink' : 'other';
