/**
 * Where a byte buffer of UTF-8 may be cut without splitting a character: what a command's output
 * (output.ts) and a background job's reads (job_output.ts) show must not end or start mid-character.
 */

/** Length of the longest prefix of b[0, len) that ends on a character boundary. */
export function wholeChars(b: Uint8Array, len = b.length): number {
  if (len === 0) return 0;
  let j = len - 1; // start of the last character
  while (j > 0 && ((b[j] ?? 0) & 0xc0) === 0x80 && len - j < 4) j--;
  const lead = b[j] ?? 0;
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return j + size <= len ? len : j;
}

/** Offset of the first character boundary of `b`. */
export function charStart(b: Uint8Array): number {
  let i = 0;
  while (i < b.length && i < 3 && ((b[i] ?? 0) & 0xc0) === 0x80) i++;
  return i;
}
