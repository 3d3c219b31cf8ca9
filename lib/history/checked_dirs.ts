/**
 * Reading a file of the root as it was stat'ed, never through a symlink: the copies taken before a
 * command and the after-images read once it ended. Main thread.
 */
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import path from 'node:path';
import { readFdRange } from '../core/read_fd.ts';
import type { DirHandle } from '../files/atomic.ts';
import { openDirFrom } from '../files/dir_tree.ts';
import type { EntryState } from './tree_states.ts';

/**
 * Directories of the root opened through checked descriptors (dir_tree.ts), kept open while a batch
 * of files is read (at most KEPT_DIRS at a time): no directory swapped for a symlink can lead a read
 * outside the root, and a directory of many files is checked once.
 */
export class CheckedDirs {
  readonly #root: string;
  readonly #open = new Map<string, DirHandle | undefined>();
  constructor(root: string) {
    this.#root = root;
  }
  get(relDir: string): DirHandle | undefined {
    if (this.#open.has(relDir)) return this.#open.get(relDir);
    if (this.#open.size >= KEPT_DIRS) this.close();
    const opened = openDirFrom(this.#root, relDir === '' ? this.#root : path.join(this.#root, relDir), false);
    const dir = opened.ok ? opened.value : undefined;
    this.#open.set(relDir, dir);
    return dir;
  }
  close(): void {
    for (const d of this.#open.values()) d?.close();
    this.#open.clear();
  }
}
const KEPT_DIRS = 64;

/**
 * The file `rel`'s bytes, if it is still the very file stat'ed (same inode, size and mtime); opened
 * with O_NOFOLLOW in its directory reached from the root through checked descriptors, never through a
 * symlink: a directory swapped for one (while the walk stat'ed, or since) cannot lead outside the root.
 */
export function readAsStated(root: string, rel: string, st: EntryState, dirs?: CheckedDirs): Buffer | undefined {
  const slash = rel.lastIndexOf('/');
  const own = dirs ? undefined : new CheckedDirs(root);
  const dir = (dirs ?? own)?.get(slash === -1 ? '' : rel.slice(0, slash));
  let fd: number;
  try {
    if (!dir) return undefined;
    fd = openSync(dir.at(rel.slice(slash + 1)), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  } finally {
    own?.close();
  }
  try {
    const now = fstatSync(fd, { bigint: true });
    if (now.ino !== st.ino || now.size !== st.size || now.mtimeNs !== st.mtimeNs) return undefined;
    const buf = readFdRange(fd, 0, Number(st.size));
    return buf.length === Number(st.size) ? buf : undefined; // shrank while read
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
