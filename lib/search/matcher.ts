/**
 * Pattern compilers for glob and grep. Globs go through picomatch (`**`, braces, classes, extglob;
 * `*` does not match a leading dot); regexes are JavaScript's, with a required literal pulled out of
 * the pattern when there is one so the searcher can reject files on raw bytes before decoding them.
 * Pure functions; run in workers and inline.
 */
import picomatch from 'picomatch';
import { errValue, okValue, type Result } from '../core/result.ts';

export interface GlobMatcher {
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

export interface RegexSpec {
  /** Tests one line (no newline). Not global: `test` keeps no state. */
  line: RegExp;
  /** Global, multiline scanner over a whole text, for candidates when there is no literal. */
  scan: RegExp;
  /** A substring every match contains, matched case-sensitively on raw UTF-8 bytes. */
  literal?: Buffer;
  /** A pure-ASCII substring every match contains, for case-insensitive patterns. */
  literalFolded?: string;
  /** The pattern is exactly its literal: a line matches iff it contains the literal. */
  pure: boolean;
}

export interface RegexOptions {
  ignoreCase: boolean;
  fixedStrings: boolean;
}

export function compileRegex(pattern: string, o: RegexOptions): Result<RegexSpec, string> {
  if (pattern === '') return errValue('The pattern is empty');
  const source = o.fixedStrings ? escapeRegex(pattern) : pattern;
  // `\p{…}` and `\u{…}` mean something only with the u flag; other patterns compile without it, as
  // most agents write them (identity escapes like `\-` are errors under u).
  const unicode = !o.fixedStrings && /\\[pPu]\{/.test(pattern);
  const flags = (o.ignoreCase ? 'i' : '') + (unicode ? 'u' : '');
  let line: RegExp;
  let scan: RegExp;
  try {
    line = new RegExp(source, flags);
    scan = new RegExp(source, `${flags}gm`);
  } catch (e) {
    return errValue((e as Error).message);
  }
  const lit = o.fixedStrings ? pattern : requiredLiteral(pattern);
  const whole = lit !== undefined && (o.fixedStrings || (lit === pattern && !/[.*+?^${}()|[\]\\]/.test(pattern)));
  const spec: RegexSpec = { line, scan, pure: false };
  if (lit) {
    if (!o.ignoreCase) {
      spec.literal = Buffer.from(lit, 'utf8');
      spec.pure = whole && !lit.includes('\n');
    } else if (/^[\x20-\x7e\t]+$/.test(lit)) {
      // ASCII case folding on a latin1 view equals the regex's own non-unicode folding for ASCII.
      spec.literalFolded = lit.toLowerCase();
      spec.pure = whole;
    }
  }
  return okValue(spec);
}

export const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

const CLASS_ESCAPES = new Set('dDwWsSbBpPkcxu0123456789');
const CONTROL_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v' };

/**
 * The longest run of characters every match must contain, or undefined. Conservative: any top-level
 * alternation, and anything it does not understand, gives up rather than risk a missed match.
 */
export function requiredLiteral(src: string): string | undefined {
  const runs: string[] = [];
  let run = '';
  const flush = () => {
    if (run) runs.push(run);
    run = '';
  };
  let depth = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as string;
    if (depth > 0) {
      if (c === '\\') i++;
      else if (c === '[') i = skipClass(src, i);
      else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) {
        flush(); // a group is never part of the literal; skip a quantifier on it too
        if ('*+?{'.includes(src[i + 1] ?? '')) i = skipQuantifier(src, i + 1);
      }
      continue;
    }
    let atom: string | undefined; // a literal character, or undefined for anything else
    if (c === '\\') {
      const n = src[i + 1];
      i++;
      if (n === undefined) return undefined;
      if (CONTROL_ESCAPES[n]) atom = CONTROL_ESCAPES[n];
      else if (!CLASS_ESCAPES.has(n) && !/[a-zA-Z]/.test(n)) atom = n;
    } else if (c === '|') {
      return undefined;
    } else if (c === '[') {
      i = skipClass(src, i);
    } else if (c === '(') {
      depth = 1;
    } else if (c === ')') {
      return undefined;
    } else if (!'.^$'.includes(c) && !'*+?{'.includes(c)) {
      atom = c;
    } else if ('*+?{'.includes(c)) {
      return undefined; // a quantifier with nothing before it: leave the pattern to the engine
    }
    // A following quantifier decides whether this atom is required and whether the run continues.
    const q = src[i + 1];
    if (q === '*' || q === '?' || (q === '{' && /^\{0[,}]/.test(src.slice(i + 1)))) {
      flush();
      i = skipQuantifier(src, i + 1);
      continue;
    }
    if (q === '+' || q === '{') {
      if (atom !== undefined) run += atom;
      flush();
      i = skipQuantifier(src, i + 1);
      continue;
    }
    if (atom !== undefined) run += atom;
    else flush();
  }
  if (depth !== 0) return undefined;
  flush();
  return runs.reduce<string | undefined>(
    (best, r) => (best === undefined || r.length > best.length ? r : best),
    undefined,
  );
}

function skipClass(src: string, i: number): number {
  let j = i + 1;
  if (src[j] === '^') j++;
  if (src[j] === ']') j++;
  for (; j < src.length; j++) {
    if (src[j] === '\\') j++;
    else if (src[j] === ']') return j;
  }
  return src.length;
}

function skipQuantifier(src: string, i: number): number {
  let j = i;
  if (src[j] === '{') {
    const close = src.indexOf('}', j);
    j = close === -1 ? j : close;
  }
  if (src[j + 1] === '?' || src[j + 1] === '+') j++; // lazy or possessive-looking suffix
  return j;
}
