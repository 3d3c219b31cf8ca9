/** Small text helpers shared by tools and messages: quoting names safely for the model and the terminal. */

// C0/C1 controls, bidi overrides and isolates, zero-width characters: anything that could make a
// name display as something else (P-20 in the security notes).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** Escapes characters that could hide or spoof text, as `\uXXXX` (or `\n`, `\t`). */
export function escapeControl(s: string): string {
  return s.replace(UNSAFE, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** Whether `s` holds any character `escapeControl` would escape. */
export function hasUnsafe(s: string): boolean {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(s);
}

/** A name in double quotes with unsafe characters escaped: `"src/a.ts"`. */
export const quote = (s: string) => `"${escapeControl(s)}"`;

/** Turns OS separators into `/` for paths shown to the model. */
export const toSlash = (p: string) => (p.includes('\\') ? p.split('\\').join('/') : p);
