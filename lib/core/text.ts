/** Small text helpers shared by tools and messages: quoting names safely for the model and the terminal. */

// Characters that could make a name or a command display as something else: C0 and C1 controls;
// zero-width and invisible characters (U+180E, U+200B–U+200F, U+2060–U+2064, U+FEFF, the Hangul
// fillers U+115F, U+1160, U+3164, U+FFA0); bidi marks, embeddings, overrides and isolates (U+061C,
// U+202A–U+202E, U+2066–U+2069); line and paragraph separators (U+2028, U+2029), which some
// terminals render as a line break; and tag characters (U+E0000–U+E007F), invisible everywhere.
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0\u{e0000}-\u{e007f}]/gu;

/** Escapes characters that could hide or spoof text, as `\uXXXX` (or `\n`, `\t`). */
export function escapeControl(s: string): string {
  return s.replace(UNSAFE, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    const code = c.codePointAt(0) as number;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Whether `s` holds any character `escapeControl` would escape. */
export function hasUnsafe(s: string): boolean {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(s);
}

/** A name in double quotes with unsafe characters escaped: `"src/a.ts"`. */
export const quote = (s: string) => `"${escapeControl(s)}"`;
