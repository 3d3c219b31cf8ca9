/**
 * Which search patterns may run on the main thread, where nothing can stop a regex once it starts;
 * every other one runs in a worker under the deadline. For grep, only those that provably cannot
 * backtrack: V8's engine backtracks only into a quantifier (`*`, `+`, `?`, `{n,m}`) or an alternative
 * (`|`), so a pattern with neither tries each start position once, in at most as many steps as it is
 * long — lookarounds included, since nothing inside them can be retried either.
 * `a*` twenty-four times and `[!?]x` has no nested group, yet backtracks polynomially (hours on a
 * 40-character line): no rule about nesting is enough. For glob, see `boundedGlob`. Pure functions.
 */
import { canBacktrack } from './regex/compile.ts';
import { parseRegex } from './regex/parse.ts';

/** Longer patterns go to a worker too: the per-position cost is the pattern's length. */
export const INLINE_MAX_PATTERN = 256;

/** For `inlineMaxFiles`: no tree is this small, not even one remembered as empty that has since grown. */
export const NEVER_INLINE = -1;

/**
 * Whether `pattern` (ripgrep syntax, or a literal with `fixedStrings`) runs in linear time, judged on
 * its parsed tree: no repetition and no alternation anywhere, lookarounds included. The translation
 * adds only fixed-width lookarounds (word boundaries, case variants as classes), which cannot be
 * retried. A pattern that does not parse is not linear (it fails before running anyway).
 */
export function linearPattern(pattern: string, fixedStrings: boolean): boolean {
  if (pattern.length > INLINE_MAX_PATTERN) return false;
  if (fixedStrings) return true;
  const tree = parseRegex(pattern);
  return tree.ok && !canBacktrack(tree.value);
}

/**
 * The index of the `]` closing the class opened at `open`, as JavaScript reads it: the first
 * unescaped `]`, even right after `[` or `[^` (`[]` is an empty class, not a literal `]`), so a
 * quantifier after it is seen. Unclosed: the end (the regex did not compile anyway).
 */
function classEnd(src: string, open: number): number {
  for (let j = open + 1; j < src.length; j++) {
    if (src[j] === '\\') j++;
    else if (src[j] === ']') return j;
  }
  return src.length;
}

/**
 * Whether a glob's regex (picomatch: `*` is `[^/]*?`, `**` a lazy run over whole segments, braces
 * alternatives, extglobs quantified groups) backtracks only boundedly: no extglob, no wildcard inside
 * braces, at most one `*` in a segment, at most one `**`, and at most two wildcards in all. A `*` can
 * then only be retried within its own segment (at most 255 bytes, NAME_MAX) and a `**` only at each
 * `/` of the path, so a path costs at most its length times a segment times the pattern.
 * `**\/*.ts`, `src/**\/*.{js,ts}` and `*\/*.md` qualify; `*a*a*…*b` (hours on a long name) does not.
 */
export function boundedGlob(pattern: string): boolean {
  if (pattern.length > INLINE_MAX_PATTERN || /[@!+*?]\(/.test(pattern)) return false;
  let wildcards = 0;
  let globstars = 0;
  let stars = 0; // in the current segment
  let segment = '';
  let braces = 0;
  const endSegment = () => {
    if (segment === '**') globstars++;
    else if (stars > 1) return false;
    wildcards += segment === '**' ? 1 : stars;
    stars = 0;
    segment = '';
    return globstars <= 1 && wildcards <= 2;
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\') {
      segment += c + (pattern[++i] ?? '');
      continue;
    }
    if (c === '[') {
      const end = classEnd(pattern, i);
      segment += pattern.slice(i, end + 1);
      i = end;
      continue;
    }
    if (c === '{') braces++;
    else if (c === '}') braces = Math.max(0, braces - 1);
    else if (c === '*') {
      if (braces > 0) return false;
      stars++;
    } else if (c === '/' && braces === 0) {
      if (!endSegment()) return false;
      continue;
    }
    segment += c;
  }
  return endSegment();
}
