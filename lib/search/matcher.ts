/**
 * Pattern compilers for glob and grep. Globs go through picomatch (`**`, braces, classes, extglob;
 * `*` does not match a leading dot); grep's patterns are ripgrep's syntax (lib/search/regex/).
 * Pure functions; run in workers and inline.
 */
import picomatch from 'picomatch';
import { errValue, okValue, type Result } from '../core/result.ts';

interface GlobMatcher {
  pattern: string;
  /** Leading directories without glob characters: where the walk can start. */
  base: string;
  /** How deep below `base` a match can be; Infinity with `**`. */
  maxDepth: number;
  /** True when the pattern names a dot segment, so hidden directories may hold matches. */
  namesHidden: boolean;
  /** Tests a path relative to the search root, `/`-separated. */
  match(rel: string): boolean;
}

export function compileGlob(pattern: string, options: { dot?: boolean } = {}): Result<GlobMatcher, string> {
  if (pattern === '') return errValue('The glob pattern is empty');
  if (pattern.startsWith('/'))
    return errValue(
      `The glob pattern "${pattern}" is absolute; patterns are relative to path — set path to the directory and give the rest as the pattern`,
    );
  if (pattern.split('/').includes('..'))
    return errValue(`The glob pattern "${pattern}" climbs out with ".."; set path to the directory to search instead`);
  let isMatch: (s: string) => boolean;
  try {
    isMatch = picomatch(pattern, { dot: options.dot ?? false, strictBrackets: true, strictSlashes: false });
  } catch (e) {
    return errValue(`Invalid glob pattern "${pattern}": ${(e as Error).message}`);
  }
  const scan = picomatch.scan(pattern);
  const base = scan.isGlob ? scan.base : pattern.includes('/') ? pattern.slice(0, pattern.lastIndexOf('/')) : '';
  const rest = base ? pattern.slice(base.length + 1) : pattern;
  const maxDepth = rest.includes('**') ? Number.POSITIVE_INFINITY : rest.split('/').length;
  const namesHidden = pattern
    .split('/')
    .some((seg) => /^[{(@!+]*\./.test(seg) || seg.includes(',.') || seg.includes('|.'));
  return okValue({ pattern, base, maxDepth, namesHidden, match: isMatch });
}

export { compileRegex, type RegexOptions, type RegexSpec, type RequiredLiterals } from './regex/compile.ts';
