/**
 * The character-level differences an edit matcher may look past, because they cannot change what the
 * code means: typographic quotes and dashes a model typed for ASCII ones, non-breaking and zero-width
 * spaces, and `\"` written for `"`. `lineKey` is the loosest form of a line the matcher compares;
 * `charFixes` says which of these differences a line of old_string had, so the same fixes can be
 * applied to the lines the model wrote in new_string.
 */

export type CharFix =
  | 'typographic quotes'
  | 'typographic dashes'
  | 'non-breaking spaces'
  | 'zero-width characters'
  | '\\" escapes';

const FIXES: readonly [CharFix, RegExp, string][] = [
  ['zero-width characters', /[\u200b-\u200d\u2060\ufeff]/g, ''],
  ['non-breaking spaces', /[\u00a0\u2000-\u200a\u202f\u205f\u3000]/g, ' '],
  ['typographic quotes', /[\u2018\u2019\u201a\u201b\u2032]/g, "'"],
  ['typographic quotes', /[\u201c\u201d\u201e\u201f\u2033]/g, '"'],
  ['typographic dashes', /[\u2010-\u2015\u2212]/g, '-'],
  ['\\" escapes', /\\"/g, '"'],
];

/** The line with every tolerated character difference undone. */
export function charKey(s: string): string {
  let out = s;
  for (const [, re, to] of FIXES) out = out.replace(re, to);
  return out;
}

/** The loosest form of a line: characters normalised, surrounding whitespace gone. */
export const lineKey = (s: string): string => charKey(s).trim();

/**
 * The fixes that turn old_string's line `o` into the file's `f`: a kind counts when `o` has it and
 * `f` does not (a file that itself uses curly quotes keeps them in new_string).
 */
export function charFixes(f: string, o: string): CharFix[] {
  const out: CharFix[] = [];
  for (const [kind, re] of FIXES) {
    re.lastIndex = 0;
    const inO = re.test(o);
    re.lastIndex = 0;
    if (inO && !re.test(f) && !out.includes(kind)) out.push(kind);
    re.lastIndex = 0;
  }
  return out;
}

/** Applies the given fixes to a line the model wrote. */
export function applyFixes(s: string, fixes: readonly CharFix[]): string {
  let out = s;
  for (const [kind, re, to] of FIXES) if (fixes.includes(kind)) out = out.replace(re, to);
  return out;
}

/** Whether a line has a letter or digit: lines like `}` or `);` tell two places apart poorly. */
export const significant = (key: string): boolean => /[\p{L}\p{N}]/u.test(key);

/** An elided stretch (`...`, `…`, `// ... existing code ...`): the model left lines out. */
export const isElision = (line: string): boolean =>
  /^\s*(?:\/\/|#|\/\*|<!--|--|;|\*)?\s*(?:\.\.\.|…)/.test(line) ||
  /\.\.\.\s*(?:existing|rest of|unchanged)/i.test(line);
