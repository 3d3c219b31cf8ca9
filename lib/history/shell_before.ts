/**
 * What a shell command's journal takes before the command runs: the state of every entry of the root
 * (tree_states.ts), and for each file a way to its bytes should the command change it — the blob of
 * a file git calls clean (nothing copied), else a copy in memory, most recently modified first, within
 * a budget. A file with neither is named if the command changes it (shell_after.ts). Main thread.
 */
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import path from 'node:path';
import { readFdRange } from '../core/read_fd.ts';
import type { DirHandle } from '../files/atomic.ts';
import { openDirFrom } from '../files/dir_tree.ts';
import { cleanFor } from './git_index.ts';
import { findRepo, type GitIndexState, type GitRepo, mayFilter, readIndex } from './git_repo.ts';
import { type EntryState, type TreeScope, type TreeStates, treeStates } from './tree_states.ts';

/** Copies taken before a command: at most this many files and bytes, each file at most FILE_MAX. */
export const COPY_FILES = 1000;
export const COPY_BYTES = 32 * 1024 * 1024;
export const FILE_MAX = 16 * 1024 * 1024;
/**
 * A file whose ctime is this close to the snapshot may be changed again within the same clock tick
 * (coarse file-system timestamps), leaving its stat as it was: its bytes are copied and compared.
 */
export const RACY_NS = 50_000_000n;

export interface ShellBefore {
  root: string;
  scope: TreeScope;
  states: TreeStates;
  /** Bytes copied before the command, by path. */
  copies: Map<string, Buffer>;
  /** Files git holds clean: their blob ids, by path. */
  blobs: Map<string, string>;
  /** Files whose stat alone cannot show a change (changed within the snapshot's clock tick). */
  racy: Set<string>;
  repo?: GitRepo;
  /**
   * Milliseconds the command must wait before it starts: recently changed files that could not be
   * copied are then older than any change the command can make (their stat tells).
   */
  waitMs: number;
}

export const isRegular = (s: EntryState) => (s.mode & 0o170000) === 0o100000;

/** The root's states and the ways to its files' bytes; undefined when the root has more than `maxFiles` files. */
export function beforeCommand(root: string, scope: TreeScope): ShellBefore | undefined {
  const racyFrom = BigInt(Date.now()) * 1_000_000n - RACY_NS;
  const states = treeStates(root, scope);
  if (states.cut) return undefined;
  const repo = findRepo(root);
  // A repository that may filter what it stores gives no blobs to trust (git_repo.ts mayFilter).
  const index = repo && !mayFilter(repo) ? readIndex(repo) : undefined;
  const prefix = repo ? path.relative(repo.top, root).split(path.sep).join('/') : '';
  const b: ShellBefore = {
    root,
    scope,
    states,
    copies: new Map(),
    blobs: new Map(),
    racy: new Set(),
    waitMs: 0,
    ...(repo ? { repo } : {}),
  };
  const toCopy: [string, EntryState][] = [];
  for (const [rel, st] of states.files) {
    if (!isRegular(st)) continue;
    if (st.ctimeNs >= racyFrom) b.racy.add(rel);
    const oid = index && !b.racy.has(rel) ? cleanOid(index, prefix ? `${prefix}/${rel}` : rel, st) : undefined;
    if (oid) b.blobs.set(rel, oid);
    else toCopy.push([rel, st]);
  }
  b.waitMs = copyWithin(b, toCopy);
  return b;
}

function cleanOid(index: GitIndexState, key: string, st: EntryState): string | undefined {
  const e = index.entries.get(key);
  return e && cleanFor(e, st, index.mtimeNs) ? e.oid : undefined;
}

/**
 * Racy files first (their bytes are the only way to see a change), then the most recently modified,
 * within the budget. Racy files left uncopied are no longer racy once the clock has moved past the
 * window: the answer is how long the command must wait to start (0 when none was left).
 */
function copyWithin(b: ShellBefore, files: [string, EntryState][]): number {
  files.sort(([ra, a], [rb, c]) => Number(b.racy.has(rb)) - Number(b.racy.has(ra)) || (c.mtimeNs > a.mtimeNs ? 1 : -1));
  let bytes = 0;
  let waitUntilNs = 0n;
  const dirs = new CheckedDirs(b.root);
  try {
    for (const [rel, st] of files) {
      const got =
        st.size <= BigInt(FILE_MAX) && b.copies.size < COPY_FILES && bytes + Number(st.size) <= COPY_BYTES
          ? readAsStated(b.root, rel, st, dirs)
          : undefined;
      if (got) {
        b.copies.set(rel, got);
        bytes += got.length;
      } else if (b.racy.delete(rel) && st.ctimeNs > waitUntilNs) waitUntilNs = st.ctimeNs;
    }
  } finally {
    dirs.close();
  }
  return waitUntilNs === 0n ? 0 : Math.max(0, Number((waitUntilNs + RACY_NS) / 1_000_000n) + 1 - Date.now());
}

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
