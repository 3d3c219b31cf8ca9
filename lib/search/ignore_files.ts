/**
 * Reading an ignore file, only when it is exactly where it was looked for: a path of real
 * directories, opened with O_NOFOLLOW and checked to be that path (`openExact`). An ignore file
 * that is a symlink, or under a directory swapped for one, is not read — rules from a file outside
 * the tree would say something about it through what they hide — as git (2.32 and later) does not
 * follow a symlinked `.gitignore`. The compiled rules are kept between searches (one cache per
 * thread) and served on a `stat` of the path when it reaches the very file read (device, inode,
 * size, mtime, ctime): an unchanged file read through a checked descriptor, wherever the path now
 * passes through. A file changed within RACY_MS is read afresh every time, as directory listings are.
 *
 * Two files git reads through a symlink are followed (`follow`): `info/exclude` and the global
 * excludes file (ignore_outer.ts); what is opened is then the symlink's target, by its real path,
 * checked as above, and only a regular file. An ignore file above the runtime root is read only when
 * it belongs to this process's user or to root (`mineOnly`): another user's `/tmp/.ignore` does not
 * steer a search under /tmp, as git refuses a repository another user owns. A file over 16 MiB is
 * not read (no ignore file is that large; a symlink to a huge file must not be read whole).
 */
import { constants, fstatSync, readFileSync, realpathSync, type Stats, statSync } from 'node:fs';
import { closeFd, openExact } from '../core/descriptors.ts';
import { RACY_MS } from './dircache.ts';
import { GitignoreRules } from './gitignore.ts';

interface Cached {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  rules: GitignoreRules | undefined;
}

const MAX_CACHED_FILES = 50_000;
/** Larger files are not read as ignore files. */
export const MAX_IGNORE_BYTES = 16 * 1024 * 1024;
const cache = new Map<string, Cached>();

const same = (c: Cached, st: Stats) =>
  c.ino === st.ino && c.dev === st.dev && c.size === st.size && c.mtimeMs === st.mtimeMs && c.ctimeMs === st.ctimeMs;

export interface ReadOptions {
  /** Follow a symlink to its target, as git follows `info/exclude` and `core.excludesFile`. */
  follow?: boolean;
  /** Read it only when this process's user or root owns it (a file above the runtime root). */
  mineOnly?: boolean;
}

/** Whether this process's user or root owns a file (always true where uids are unknown). */
export function mine(st: { uid: number }): boolean {
  const uid = process.getuid?.();
  return uid === undefined || st.uid === uid || st.uid === 0;
}

/**
 * Opens `file` for reading as the regular file it names — by its real path when `follow` (a symlink's
 * target, whatever it is), else only when no symlink is on the way — and hands its descriptor and
 * state to `use`; undefined when it is missing, not a regular file, too large, someone else's under
 * `mineOnly`, or unreadable.
 */
export function withFile<T>(file: string, o: ReadOptions, use: (fd: number, st: Stats) => T): T | undefined {
  let at = file;
  if (o.follow) {
    try {
      at = realpathSync.native(file);
    } catch {
      return undefined;
    }
  }
  // O_NONBLOCK: a FIFO named .gitignore must not hang the walk.
  const opened = openExact(at, constants.O_RDONLY | constants.O_NONBLOCK);
  if (!opened.ok) return undefined; // unreadable, a symlink, or under a directory swapped for one
  try {
    const st = fstatSync(opened.value);
    if (!st.isFile() || st.size > MAX_IGNORE_BYTES || (o.mineOnly && !mine(st))) return undefined;
    return use(opened.value, st);
  } catch {
    return undefined;
  } finally {
    closeFd(opened.value);
  }
}

/** The rules of the ignore file `file`, or undefined when it is missing, empty, or not read. */
export function readRules(file: string, o: ReadOptions = {}): GitignoreRules | undefined {
  const key = `${o.follow ? 'f' : '-'}${o.mineOnly ? 'm' : '-'}${file}`;
  let st: Stats | undefined;
  try {
    st = statSync(file, { throwIfNoEntry: false });
  } catch {
    st = undefined; // ENOTDIR, EACCES: as missing
  }
  if (!st) {
    cache.delete(key);
    return undefined; // missing (the common case): one failed stat, no exception made for it
  }
  const hit = cache.get(key);
  if (hit && same(hit, st)) return hit.rules;
  const read = withFile(file, o, (fd, at) => ({ at, text: readFileSync(fd, 'utf8') }));
  if (!read) return undefined;
  const compiled = new GitignoreRules(read.text);
  const rules = compiled.size > 0 ? compiled : undefined;
  const { dev, ino, size, mtimeMs, ctimeMs } = read.at;
  if (Date.now() - mtimeMs > RACY_MS && Date.now() - ctimeMs > RACY_MS) {
    if (cache.size >= MAX_CACHED_FILES) cache.clear();
    cache.set(key, { dev, ino, size, mtimeMs, ctimeMs, rules });
  } else {
    cache.delete(key);
  }
  return rules;
}
