/**
 * Reading a file for an edit, and encoding the edited text back. A file is decoded strictly: bytes
 * that are not valid in its encoding make it `not_text` (refused, never round-tripped through U+FFFD),
 * and valid text re-encodes to the very same bytes, BOM included. Write lane, main thread.
 */
import { type BigIntStats, closeSync, constants, fstatSync, openSync } from 'node:fs';
import { fmtInt } from '../core/budget.ts';
import { detectBom, type LineEnding, looksBinary, SNIFF_BYTES, type TextEncoding } from '../core/encoding.ts';
import { readFdRange } from '../core/read_fd.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { quote } from '../core/text.ts';
import { fail, type ToolResult } from '../core/tool.ts';
import type { DirHandle } from './atomic.ts';

/** Largest file the editing tools will load (the same bound read_file hashes whole). */
export const MAX_EDIT_BYTES = 64 * 1024 * 1024;

export interface TextStyle {
  encoding: TextEncoding;
  bom: boolean;
  eol: LineEnding;
}

export interface TextFile extends TextStyle {
  bytes: Buffer;
  /** Decoded, BOM removed, line endings as they are. */
  text: string;
  stat: BigIntStats;
}

/** The file, undefined when there is none, or the answer that refuses it. */
export type Loaded = Result<TextFile | undefined, ToolResult>;

/** Loads `dir/name` for editing (never following a symlink swapped in since the check). */
export function loadText(dir: DirHandle, name: string, shown: string): Loaded {
  let fd: number;
  try {
    fd = openSync(dir.at(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return okValue(undefined);
    if (code === 'ELOOP')
      return errValue(
        fail('stale', `${quote(shown)} became a symbolic link after it was checked; nothing was written. Try again.`),
      );
    return errValue(fail('io', `Cannot open ${quote(shown)}: ${code}`));
  }
  try {
    const stat = fstatSync(fd, { bigint: true });
    if (stat.isDirectory()) return errValue(fail('is_directory', `${quote(shown)} is a directory, not a file.`));
    if (!stat.isFile()) return errValue(fail('not_a_file', `${quote(shown)} is not a regular file.`));
    if (stat.size > BigInt(MAX_EDIT_BYTES)) {
      return errValue(
        fail(
          'too_large',
          `${quote(shown)} is ${fmtInt(Number(stat.size))} bytes; the editing tools handle files up to ${fmtInt(MAX_EDIT_BYTES)} bytes. Use bash for this one.`,
        ),
      );
    }
    const bytes = readFdRange(fd, 0, Number(stat.size));
    const decoded = decode(bytes, shown);
    if (!decoded.ok) return decoded;
    return okValue({ bytes, stat, ...decoded.value });
  } finally {
    closeSync(fd);
  }
}

function decode(bytes: Buffer, shown: string): Result<TextStyle & { text: string }, ToolResult> {
  const bom = detectBom(bytes);
  if (!bom && looksBinary(bytes.subarray(0, SNIFF_BYTES))) {
    return errValue(
      fail(
        'binary',
        `${quote(shown)} is a binary file (${fmtInt(bytes.length)} bytes); the text editing tools will not change it.`,
      ),
    );
  }
  const encoding = bom?.encoding ?? 'utf-8';
  let text: string;
  try {
    text = new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes.subarray(bom?.bomBytes ?? 0));
  } catch {
    return errValue(
      fail(
        'not_text',
        `${quote(shown)} is not valid ${encoding.toUpperCase()} text; editing it as text would corrupt it, so nothing was written. Change it with bash (e.g. iconv, sed) instead.`,
      ),
    );
  }
  return okValue({ text, encoding, bom: bom !== undefined, eol: eolOf(text) });
}

export function eolOf(text: string): LineEnding {
  let lf = 0;
  let crlf = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    lf++;
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
  }
  return lf === 0 ? 'none' : crlf === 0 ? 'lf' : crlf === lf ? 'crlf' : 'mixed';
}

/** The bytes of `text` in a style: the inverse of loading, byte for byte. */
export function encodeText(text: string, style: Pick<TextStyle, 'encoding' | 'bom'>): Buffer {
  if (style.encoding === 'utf-8') {
    const body = Buffer.from(text, 'utf8');
    return style.bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body;
  }
  const le = Buffer.from(text, 'utf16le');
  if (style.encoding === 'utf-16le') return style.bom ? Buffer.concat([Buffer.from([0xff, 0xfe]), le]) : le;
  const be = le.swap16();
  return style.bom ? Buffer.concat([Buffer.from([0xfe, 0xff]), be]) : be;
}

/** Gives LF-only text the line endings of a CRLF file (lone LFs become CRLF; CRLFs stay). */
export function withEol(text: string, eol: LineEnding): string {
  return eol === 'crlf' ? text.replace(/\r?\n/g, '\r\n') : text;
}
