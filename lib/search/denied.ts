/**
 * Paths the policy denies for reading, in a form that crosses into the workers: globs and regular
 * expressions on paths relative to the runtime root. glob and grep skip them — files and whole
 * directories — before anything is read or listed, so no name or line under a denied path ever comes
 * back; they are counted without being named.
 */
import path from 'node:path';
import picomatch from 'picomatch';

export interface DenySpec {
  /** picomatch globs relative to the runtime root. */
  globs: string[];
  /** Regular expression sources tested on paths relative to the runtime root. */
  regexes: string[];
}

export type DenyTest = (relToWalkRoot: string) => boolean;

/** A test for paths relative to `walkRoot`, or undefined when nothing is denied. */
export function denyTest(spec: DenySpec | undefined, base: string, walkRoot: string): DenyTest | undefined {
  if (!spec || (spec.globs.length === 0 && spec.regexes.length === 0)) return undefined;
  const prefix = path.relative(base, walkRoot).split(path.sep).join('/');
  const globs = spec.globs.map((g) => picomatch(g, { dot: true }));
  const regexes = spec.regexes.map((r) => new RegExp(r));
  return (rel) => {
    const p = prefix ? `${prefix}/${rel}` : rel;
    return globs.some((g) => g(p)) || regexes.some((r) => r.test(p));
  };
}

/** A denied path (relative to the root) as globs: the path and everything under it. */
export const pathGlobs = (rel: string) => (rel === '.' || rel === '' ? ['**'] : [rel, `${rel}/**`]);
