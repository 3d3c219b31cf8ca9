/**
 * Directory listings, each read through a descriptor checked to be the directory asked for (by its
 * real path, or as the O_NOFOLLOW entry of a directory checked before it): a directory of the tree
 * swapped for a symlink since it was listed in its parent is not listed, so no name from wherever the
 * symlink points comes back, and the walker opens entries through that same descriptor. Listings are
 * kept between searches of a warm runtime (one cache per thread), each revalidated on every use by
 * the directory's (device, inode, mtime, ctime): adding, removing or renaming an entry changes the
 * directory's mtime, so an unchanged key means an unchanged listing of this very directory. A listing
 * read within RACY_MS of its directory's last change is not kept — the same-timestamp race git calls
 * "racy git": an entry added within the timestamp granularity would not move the mtime.
 */

import { type Dirent, fstatSync, readdirSync, type Stats, statSync } from 'node:fs';
import path from 'node:path';
import { closeFd, DIR_ONLY, fdPath, openExactDir, openIn } from '../core/descriptors.ts';
import { onStopped } from '../core/watchdog.ts';
import { CompactListings, type DirEntry, type EntryKind } from './compact_listings.ts';

export type { DirEntry, EntryKind } from './compact_listings.ts';

/** A directory open for a walk: its checked descriptor (the caller closes it) and its entries by name. */
interface OpenedDir {
  fd: number;
  entries: DirEntry[];
}

/** A listing younger than this (ms) is read afresh every time. */
export const RACY_MS = 2000;
/** Directories remembered per thread; past this the cache starts over. */
const MAX_CACHED_DIRS = 250_000;

// Kept compactly (compact_listings.ts): the whole bench tree's listings are ~22k directories and
// ~122k entries in each thread that walks it, and an object per entry cost ~16 MiB per thread.
const cache = new CompactListings();
// A listing stored by a walk stopped by the watchdog may be half written (its slot, text and key are
// separate writes): after a stop the cache starts over.
onStopped(() => cache.clear());

let keepListings = true;
/**
 * For a process that searches once and exits (the CLI's grep and glob): no later search could be
 * served a listing, so none is kept and no directory is fstat'ed for its key, and a names-only walk
 * lists through its parents' descriptors too (`listingsKept`), with no stat or readlink per directory.
 */
export function searchOnce(): void {
  keepListings = false;
  cache.clear();
}
/** Whether listings are kept for later searches (false after `searchOnce`). */
export const listingsKept = () => keepListings;

/**
 * Opens the directory `abs` (a real path) and lists it through the descriptor; undefined when it is
 * gone, unreadable, or no longer that directory. Opened as the entry of `parentFd` (a directory
 * opened this way, `abs`'s parent) with O_NOFOLLOW when given — the real child, by induction — or
 * else by path and checked to be exactly `abs` (`openExactDir`). `name` is `abs`'s last component.
 * The caller closes `fd`.
 */
export function openListed(abs: string, parentFd?: number, name = path.basename(abs)): OpenedDir | undefined {
  const opened = parentFd === undefined ? openExactDir(abs) : openIn(parentFd, name, DIR_ONLY);
  if (!opened.ok) {
    cache.delete(abs);
    return undefined; // vanished, unreadable or swapped while walking: carry on, as ripgrep does
  }
  const fd = opened.value;
  if (!keepListings) return { fd, entries: read(fd) };
  const st = fstatSync(fd);
  const hit = cache.get(abs, st);
  if (hit) return { fd, entries: hit };
  const entries = read(fd);
  if (Date.now() - st.mtimeMs > RACY_MS && Date.now() - st.ctimeMs > RACY_MS) {
    if (cache.size >= MAX_CACHED_DIRS) cache.clear();
    cache.set(abs, st, entries);
  } else {
    cache.delete(abs);
  }
  return { fd, entries };
}

/**
 * The entries of a directory sorted by name, or [] when it cannot be listed, for a walk that needs
 * only names. A cached listing is served on a `stat` of the path when the directory it reaches is the
 * very one (device, inode, mtime, ctime) that was listed through a checked descriptor at that path:
 * whatever the path now passes through, those are the names of that directory, unchanged. Anything
 * else is listed afresh through a checked descriptor (`openListed`).
 */
export function listDir(abs: string): DirEntry[] {
  return listDirIfAny(abs) ?? [];
}

/** As listDir; undefined when the directory cannot be listed (gone, unreadable, not a directory). */
export function listDirIfAny(abs: string): DirEntry[] | undefined {
  let st: Stats;
  try {
    st = statSync(abs);
  } catch {
    cache.delete(abs);
    return undefined;
  }
  const hit = cache.get(abs, st);
  if (hit) return hit;
  const opened = openListed(abs);
  if (!opened) return undefined;
  closeFd(opened.fd);
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
