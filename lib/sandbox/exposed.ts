/**
 * What the sandbox shows read-only from outside the system directories, so that ordinary work still
 * runs in it (sandbox_view.ts hides the rest of the host):
 *
 * - the repository the root belongs to: when the root is a subdirectory of a git working tree, that
 *   working tree (its `.git` included, read-only: nothing outside the root is writable); when the
 *   root's `.git` is a pointer file (a worktree or submodule), the git directory it names and that
 *   one's common directory;
 * - the toolchains on PATH: a PATH entry outside the system shows the directory that holds it — the
 *   parent of a `bin`, `sbin` or `shims` directory (~/.cargo for ~/.cargo/bin, /opt/go for
 *   /opt/go/bin) — or the entry itself.
 *
 * Never a directory that is too broad: `/`, a top-level directory such as /opt or /home, a home
 * ($HOME, /root, /home/*) or an ancestor of one; then only the entry itself, or nothing for a
 * repository. Main thread.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { inside } from '../core/paths.ts';

/** Whether showing `d` would show too much: `/`, a top-level directory, a home or an ancestor of one. */
export function tooBroadFor(home: string): (d: string) => boolean {
  const homes = [home, '/root', ...listDir('/home').map((n) => path.join('/home', n))];
  return (d) => d === '/' || path.dirname(d) === '/' || homes.some((h) => inside(h, d));
}

/** The read-only toolchain directories for the PATH entries the system does not already show. */
export function toolchains(pathVar: string, tooBroad: (d: string) => boolean, shown: readonly string[]): string[] {
  const out: string[] = [];
  for (const entry of pathVar.split(':')) {
    if (!path.isAbsolute(entry) || !statOrUndefined(entry)?.isDirectory()) continue;
    const e = path.normalize(entry);
    if (shown.some((s) => inside(e, s)) || tooBroad(e)) continue;
    const parent = path.dirname(e);
    const dir = ['bin', 'sbin', 'shims'].includes(path.basename(e)) && !tooBroad(parent) ? parent : e;
    if (!out.some((o) => inside(dir, o))) out.push(dir);
  }
  return out.filter((d) => !out.some((o) => o !== d && inside(d, o)));
}

/** The enclosing working tree of the root, and git directories outside the root its `.git` file names. */
export function repositoryDirs(root: string, tooBroad: (d: string) => boolean): string[] {
  const out: string[] = [];
  for (let d = path.dirname(root); d !== path.dirname(d); d = path.dirname(d)) {
    if (!lstatOrUndefined(path.join(d, '.git'))) continue;
    if (!tooBroad(d)) out.push(d, ...gitdirsOutside(d, d, tooBroad));
    break;
  }
  out.push(...gitdirsOutside(root, root, tooBroad));
  return out;
}

/** The git directory a `<top>/.git` pointer file names, and its common directory, where not under `top`. */
export function gitdirsOf(top: string): string[] {
  let text: string;
  try {
    const dotGit = path.join(top, '.git');
    if (!lstatSync(dotGit).isFile()) return [];
    text = readFileSync(dotGit, 'utf8');
  } catch {
    return [];
  }
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  const gitdir = m?.[1] ? realOrUndefined(path.resolve(top, m[1])) : undefined;
  if (!gitdir) return [];
  let common: string | undefined;
  try {
    common = realOrUndefined(path.resolve(gitdir, readFileSync(path.join(gitdir, 'commondir'), 'utf8').trim()));
  } catch {
    // not a worktree
  }
  return common && common !== gitdir ? [gitdir, common] : [gitdir];
}

function gitdirsOutside(top: string, within: string, tooBroad: (d: string) => boolean): string[] {
  return gitdirsOf(top).filter((g) => !inside(g, within) && !tooBroad(g) && lstatOrUndefined(path.join(g, 'HEAD')));
}

export function listDir(d: string): string[] {
  try {
    return readdirSync(d);
  } catch {
    return [];
  }
}

export function listDirents(d: string) {
  try {
    return readdirSync(d, { withFileTypes: true });
  } catch {
    return [];
  }
}

export const lstatOrUndefined = (p: string) => {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
};

export const statOrUndefined = (p: string) => {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
};

export function realOrUndefined(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}
