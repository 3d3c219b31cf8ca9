/**
 * The character-level differences an edit matcher may look past, because they cannot change what the
 * code means: typographic quotes and dashes a model typed for ASCII ones, non-breaking and zero-width
 * spaces, and `\"` written for `"`. `lineKey` is the loosest form of a line the matcher compares;
 * `charFixes` says which characters old_string's line had that the file's lacks, so exactly those
 * can be fixed in the lines the model wrote in new_string (a file's own curly quotes, or the joiners
 * inside its emoji, are left alone).
 */

type CharFix =
  | 'typographic quotes'
  | 'typographic dashes'
  | 'non-breaking spaces'
  | 'zero-width characters'
  | '\\" escapes';

const CLASSES: readonly [CharFix, RegExp, string][] = [
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
  for (const [, re, to] of CLASSES) out = out.replace(re, to);
  return out;
}

/** The loosest form of a line: characters normalised, surrounding whitespace gone. */
export const lineKey = (s: string): string => charKey(s).trim();

const count = (s: string, token: string) => s.split(token).length - 1;

/** The tolerated characters (or `\"`) that old_string's line `o` has more of than the file's `f`. */
export function charFixes(f: string, o: string): string[] {
  const out: string[] = [];
  for (const [, re] of CLASSES) {
    for (const token of new Set(o.match(re) ?? [])) if (count(o, token) > count(f, token)) out.push(token);
  }
  return out;
}

/**
 * The tolerated characters the file's line `f` has more of than old_string's `o` (a file's `\"`,
 * NBSP or curly quote the model wrote plain): a line the model rewrites from its plain reading would
 * lose them, so such a line may only be kept, never replaced.
 */
export const lostChars = (f: string, o: string): string[] => charFixes(o, f);

/** Undoes the given characters in a line the model wrote. */
export function applyFixes(s: string, fixes: readonly string[]): string {
  let out = s;
  for (const token of fixes) {
    const cls = CLASSES.find(([, re]) => new RegExp(re.source).test(token));
    if (cls) out = out.split(token).join(cls[2]);
  }
  return out;
}

/** The kinds of the given fixes, for the answer. */
export const fixKinds = (fixes: readonly string[]): CharFix[] => [
  ...new Set(fixes.flatMap((t) => CLASSES.filter(([, re]) => new RegExp(re.source).test(t)).map(([k]) => k))),
];

/** Whether a line has a letter or digit: lines like `}` or `);` tell two places apart poorly. */
export const significant = (key: string): boolean => /[\p{L}\p{N}]/u.test(key);

/** An elided stretch (`...`, `…`, `// ... existing code ...`): the model left lines out. */
export const isElision = (line: string): boolean =>
  /^\s*(?:\/\/|#|\/\*|<!--|--|;|\*)?\s*(?:\.\.\.|…)/.test(line) ||
  /\.\.\.\s*(?:existing|rest of|unchanged)/i.test(line);
