/**
 * Directory listings kept between searches of a warm runtime (one cache per thread), each revalidated
 * by a stat of the directory on every use: adding, removing or renaming an entry changes the
 * directory's mtime, so an unchanged (mtime, ctime, inode) means an unchanged listing. A listing
 * read within RACY_MS of its directory's last change is not kept — the same-timestamp race git calls
 * "racy git": an entry added within the timestamp granularity would not move the mtime.
 */
import { type Dirent, readdirSync, statSync } from 'node:fs';

export type EntryKind = 'dir' | 'file' | 'symlink' | 'other';
export interface DirEntry {
  name: string;
  kind: EntryKind;
}

/** A listing younger than this (ms) is read afresh every time. */
export const RACY_MS = 2000;
/** Directories remembered per thread; past this the cache starts over. */
export const MAX_CACHED_DIRS = 250_000;

interface Cached {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  entries: DirEntry[];
}

const cache = new Map<string, Cached>();

/** The entries of a directory sorted by name, or [] when it cannot be listed. */
export function listDir(abs: string): DirEntry[] {
  let st: import('node:fs').Stats | undefined;
  try {
    st = statSync(abs);
  } catch {
    cache.delete(abs);
    return [];
  }
  const hit = cache.get(abs);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.ctimeMs === st.ctimeMs && hit.ino === st.ino) return hit.entries;
  const entries = read(abs);
  if (Date.now() - st.mtimeMs > RACY_MS && Date.now() - st.ctimeMs > RACY_MS) {
    if (cache.size >= MAX_CACHED_DIRS) cache.clear();
    cache.set(abs, { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, entries });
  } else {
    cache.delete(abs);
  }
  return entries;
}

function read(abs: string): DirEntry[] {
  let dirents: Dirent[];
  try {
    dirents = readdirSync(abs, { withFileTypes: true });
  } catch {
    return []; // vanished or unreadable while walking: carry on, as ripgrep does
  }
  return dirents
    .map((d) => ({ name: d.name, kind: kindOf(d) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const kindOf = (d: Dirent): EntryKind =>
  d.isDirectory() ? 'dir' : d.isFile() ? 'file' : d.isSymbolicLink() ? 'symlink' : 'other';
