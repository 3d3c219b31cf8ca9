/**
 * How file bytes are told apart as text: byte-order marks, the binary sniff, and the encodings and
 * line endings a text file may have. Pure functions on bytes, shared by both lanes (read_file and
 * grep read with them; the write lane loads and re-encodes files with them).
 */

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be';
export type LineEnding = 'lf' | 'crlf' | 'mixed' | 'none';

/** Bytes examined to decide whether a file is text. */
export const SNIFF_BYTES = 8192;

/** The encoding a byte-order mark announces, and its length; none means UTF-8 without a BOM. */
export function detectBom(head: Uint8Array): { encoding: TextEncoding; bomBytes: number } | undefined {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', bomBytes: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bomBytes: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bomBytes: 2 };
  return undefined;
}

/**
 * A file without a BOM is binary when its head holds a NUL byte or mostly control bytes (the test
 * git and ripgrep use, plus a ratio for NUL-free formats). Latin-1 and other 8-bit text stays text.
 */
export function looksBinary(head: Uint8Array): boolean {
  if (head.length === 0) return false;
  let control = 0;
  for (const b of head) {
    if (b === 0) return true;
    // Controls other than \t \n \v \f \r and ESC (colour codes in logs).
    if (b < 0x20 && b !== 9 && b !== 10 && b !== 11 && b !== 12 && b !== 13 && b !== 27) control++;
  }
  return control / head.length > 0.1;
}
