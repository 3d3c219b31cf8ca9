/**
 * Paths the policy denies for reading, in a form that crosses into the workers: globs and regular
 * expressions on paths relative to the runtime root. glob and grep skip them — files and whole
 * directories — before anything is read or listed, so no name or line under a denied path ever comes
 * back; they are counted without being named.
 */
import path from 'node:path';
import picomatch from 'picomatch';

/** Patterns a path must match to be readable: a negated rule (`read_file(!pub/**)`). */
export interface RequiredPatterns {
  globs: string[];
  regexes: string[];
}

export interface DenySpec {
  /** picomatch globs relative to the runtime root: a path any of them matches is denied. */
  globs: string[];
  /** Regular expression sources tested on paths relative to the runtime root: a match is denied. */
  regexes: string[];
  /**
   * Negated rules: a file that matches none of one entry's patterns is denied. A directory is never
   * denied by them, since a file below it may match (`!**\/*.md`); its files are tested one by one.
   */
  only?: RequiredPatterns[];
}

/** Whether a path (relative to the walk root) is denied; `isDir` for directories (default: a file). */
export type DenyTest = (relToWalkRoot: string, isDir?: boolean) => boolean;

/** A test for paths relative to `walkRoot`, or undefined when nothing is denied. */
export function denyTest(spec: DenySpec | undefined, base: string, walkRoot: string): DenyTest | undefined {
  if (!spec || (spec.globs.length === 0 && spec.regexes.length === 0 && !spec.only?.length)) return undefined;
  const prefix = path.relative(base, walkRoot).split(path.sep).join('/');
  const globs = spec.globs.map((g) => picomatch(g, { dot: true }));
  const regexes = spec.regexes.map((r) => new RegExp(r));
  const only = (spec.only ?? []).map((o) => ({
    globs: o.globs.map((g) => picomatch(g, { dot: true })),
    regexes: o.regexes.map((r) => new RegExp(r)),
  }));
  return (rel, isDir = false) => {
    const p = prefix ? `${prefix}/${rel}` : rel;
    if (globs.some((g) => g(p)) || regexes.some((r) => r.test(p))) return true;
    return !isDir && only.some((o) => !o.globs.some((g) => g(p)) && !o.regexes.some((r) => r.test(p)));
  };
}

/**
 * Whether a file (relative to the root) is denied, itself or through a directory above it: for a
 * reader that opens one known file rather than walking to it (the skill catalog).
 */
export function fileDenied(test: DenyTest | undefined, rel: string): boolean {
  if (!test) return false;
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) if (test(parts.slice(0, i).join('/'), true)) return true;
  return test(rel, false);
}

/** A denied path (relative to the root) as globs: the path and everything under it. */
export const pathGlobs = (rel: string) => (rel === '.' || rel === '' ? ['**'] : [rel, `${rel}/**`]);

/** A regular expression source matching exactly `s`. */
export const exactRegex = (s: string) => `^${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;

/** A regular expression source matching `rel` and every path below it, `rel` taken literally. */
export const underRegex = (rel: string) => `^${rel.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:/|$)`;
