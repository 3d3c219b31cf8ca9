/**
 * Byte-order marks in search, as ripgrep handles them: a UTF-8 BOM is not part of the first line
 * (so `^` matches there and printed lines carry no U+FEFF), and a UTF-16 file with a BOM is decoded
 * and searched as text instead of being skipped as binary (its NUL bytes). read_file does the same.
 */
import { readSync } from 'node:fs';
import { detectBom } from '../core/encoding.ts';

/** Largest UTF-16 file decoded for search; past it the file is searched up to here (rg has no cap). */
const MAX_UTF16_BYTES = 256 * 1024 * 1024;

/**
 * The BOM at the start of the first read: `utf-8` (its 3 bytes to drop), `utf-16` (decode the file),
 * or none.
 */
export function bomKind(first: Buffer, end: number): 'utf-8' | 'utf-16' | undefined {
  const bom = detectBom(first.subarray(0, Math.min(end, 3)));
  if (!bom) return undefined;
  return bom.encoding === 'utf-8' ? 'utf-8' : 'utf-16';
}

/**
 * A UTF-16 file, already partly read into `first[0, end)`, read to its end (up to MAX_UTF16_BYTES)
 * and decoded to UTF-8 bytes without the BOM. Unpaired surrogates become U+FFFD, as in rg.
 */
export function readUtf16(fd: number, first: Buffer, end: number): Buffer {
  const parts = [Buffer.from(first.subarray(0, end))];
  let total = end;
  let pos = end;
  while (total < MAX_UTF16_BYTES) {
    const chunk = Buffer.allocUnsafe(Math.min(8 * 1024 * 1024, MAX_UTF16_BYTES - total));
    const got = readSync(fd, chunk, 0, chunk.length, pos);
    if (got === 0) break;
    parts.push(chunk.subarray(0, got));
    total += got;
    pos += got;
  }
  const bytes = Buffer.concat(parts, total);
  const encoding = bytes[0] === 0xff ? 'utf-16le' : 'utf-16be';
  const text = new TextDecoder(encoding, { ignoreBOM: false }).decode(bytes);
  return Buffer.from(text, 'utf8');
}
