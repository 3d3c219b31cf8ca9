/**
 * Reading an ignore file, only when it is exactly where it was looked for: a path of real
 * directories, opened with O_NOFOLLOW and checked to be that path (`openExact`). An ignore file
 * that is a symlink, or under a directory swapped for one, is not read — rules from a file outside
 * the tree would say something about it through what they hide — as git (2.32 and later) does not
 * follow a symlinked `.gitignore`. The compiled rules are kept between searches (one cache per
 * thread) and served on a `stat` of the path when it reaches the very file read (device, inode,
 * size, mtime, ctime): an unchanged file read through a checked descriptor, wherever the path now
 * passes through. A file changed within RACY_MS is read afresh every time, as directory listings are.
 */
import { closeSync, constants, fstatSync, readFileSync, type Stats, statSync } from 'node:fs';
import { openExact } from '../core/descriptors.ts';
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
const cache = new Map<string, Cached>();

const same = (c: Cached, st: Stats) =>
  c.ino === st.ino && c.dev === st.dev && c.size === st.size && c.mtimeMs === st.mtimeMs && c.ctimeMs === st.ctimeMs;

/** The rules of the ignore file `file`, or undefined when it is missing, empty, or not read. */
export function readRules(file: string): GitignoreRules | undefined {
  let st: Stats;
  try {
    st = statSync(file);
  } catch {
    cache.delete(file);
    return undefined; // missing (the common case): one failed stat, as a failed open cost before
  }
  const hit = cache.get(file);
  if (hit && same(hit, st)) return hit.rules;
  // O_NONBLOCK: a FIFO named .gitignore must not hang the walk.
  const opened = openExact(file, constants.O_RDONLY | constants.O_NONBLOCK);
  if (!opened.ok) return undefined; // unreadable, a symlink, or under a directory swapped for one
  let read: Stats;
  let text: string;
  try {
    read = fstatSync(opened.value);
    if (!read.isFile()) return undefined;
    text = readFileSync(opened.value, 'utf8');
  } catch {
    return undefined;
  } finally {
    closeSync(opened.value);
  }
  const compiled = new GitignoreRules(text);
  const rules = compiled.size > 0 ? compiled : undefined;
  if (Date.now() - read.mtimeMs > RACY_MS && Date.now() - read.ctimeMs > RACY_MS) {
    if (cache.size >= MAX_CACHED_FILES) cache.clear();
    const { dev, ino, size, mtimeMs, ctimeMs } = read;
    cache.set(file, { dev, ino, size, mtimeMs, ctimeMs, rules });
  } else {
    cache.delete(file);
  }
  return rules;
}
