/**
 * Streams a numbered window of lines out of an open file in bounded memory: lines before the window
 * are counted on raw bytes (UTF-8) without decoding, lines are held only up to the per-line cap, and
 * the file is read past the window only to hash it when it is small enough. Used by read_file.
 */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { charPrefix } from '../core/budget.ts';
import { detectBom, type LineEnding, looksBinary, SNIFF_BYTES, type TextEncoding } from '../core/encoding.ts';

const CHUNK_BYTES = 64 * 1024;
const LF = 0x0a;
const CR = 0x0d;

export interface WindowOptions {
  offset: number;
  limit: number;
  maxLineChars: number;
  maxOutputBytes: number;
  /** Files up to this size are read to the end to hash them (and count their lines). */
  hashLimit: number;
  signal: AbortSignal;
}

export interface Window {
  kind: 'text';
  /** `%6d\t`-numbered lines. */
  lines: string[];
  first: number;
  /** Why the window ended: end of file, the line limit, or the output budget. */
  stop: 'eof' | 'limit' | 'budget';
  /** Total lines, when the whole file was scanned. */
  totalLines: number | null;
  /** Lines in the window cut at the per-line cap. */
  cutLines: number;
  sha256: string | null;
  encoding: TextEncoding;
  bom: boolean;
  eol: LineEnding;
}

export type WindowOutcome = Window | { kind: 'binary' } | { kind: 'cancelled' };

export async function readWindow(fh: FileHandle, o: WindowOptions, size: number): Promise<WindowOutcome> {
  const hash = size <= o.hashLimit ? createHash('sha256') : null;
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let filePos = 0;
  const readChunk = async () => {
    const { bytesRead } = await fh.read(buf, 0, CHUNK_BYTES, filePos);
    filePos += bytesRead;
    const chunk = buf.subarray(0, bytesRead);
    hash?.update(chunk);
    return chunk;
  };

  let chunk = await readChunk();
  const bom = detectBom(chunk);
  if (!bom && looksBinary(chunk.subarray(0, SNIFF_BYTES))) return { kind: 'binary' };
  const encoding: TextEncoding = bom?.encoding ?? 'utf-8';
  const byteMode = encoding === 'utf-8'; // newlines can be found on raw bytes only in UTF-8
  const decoder = new TextDecoder(encoding, { fatal: false, ignoreBOM: true });

  type Phase = 'skip' | 'window' | 'tail';
  let phase: Phase = o.offset > 1 ? 'skip' : 'window';
  let lineNo = 1; // the line being read
  let lf = 0;
  let crlf = 0;
  let prevCR = false; // last byte/char seen was \r
  let lastWasLF = true; // nothing yet, or the last byte/char was \n
  let cur = '';
  let curLen = 0;
  const lines: string[] = [];
  let outBytes = 0;
  let stop: Window['stop'] = 'eof';
  let cutLines = 0;

  const finishLine = () => {
    let text = cur;
    let len = curLen;
    if (text.endsWith('\r') && len <= o.maxLineChars + 1) {
      text = text.slice(0, -1);
      len--;
    }
    let shown = text;
    if (len > o.maxLineChars) {
      shown = `${charPrefix(text, o.maxLineChars)} … [truncated: line ${lineNo} has ${len} characters; the rest of it can be searched with grep]`;
      cutLines++;
    }
    const formatted = `${String(lineNo).padStart(6)}\t${shown}`;
    const bytes = Buffer.byteLength(formatted) + 1;
    cur = '';
    curLen = 0;
    if (outBytes + bytes > o.maxOutputBytes) {
      phase = 'tail';
      stop = 'budget';
      return;
    }
    outBytes += bytes;
    lines.push(formatted);
    if (lines.length >= o.limit) {
      phase = 'tail';
      stop = 'limit';
    }
  };

  const scanBytes = (b: Uint8Array, from: number): number => {
    // Counts newlines on raw bytes; returns the index after the newline that starts the window, or -1.
    let i = from;
    while (i < b.length) {
      const nl = b.indexOf(LF, i);
      if (nl === -1) {
        if (b.length > i) {
          prevCR = b[b.length - 1] === CR;
          lastWasLF = false;
        }
        return -1;
      }
      lf++;
      if (nl > i ? b[nl - 1] === CR : prevCR) crlf++;
      prevCR = false;
      lastWasLF = true;
      i = nl + 1;
      lineNo++;
      if (phase === 'skip' && lineNo >= o.offset) return i;
    }
    return -1;
  };

  const scanText = (s: string) => {
    let i = 0;
    while (i < s.length) {
      const nl = s.indexOf('\n', i);
      const end = nl === -1 ? s.length : nl;
      if (phase === 'window' && end > i) {
        // Hold at most one char past the cap: enough to know the line was cut, never a 50 MB line.
        if (cur.length <= o.maxLineChars) cur += s.slice(i, Math.min(end, i + o.maxLineChars + 1 - cur.length));
        curLen += end - i;
      }
      if (nl === -1) {
        if (end > i) {
          prevCR = s.charCodeAt(end - 1) === CR;
          lastWasLF = false;
        }
        return;
      }
      lf++;
      if (nl > i ? s.charCodeAt(nl - 1) === CR : prevCR) crlf++;
      prevCR = false;
      lastWasLF = true;
      if (phase === 'window') finishLine();
      lineNo++;
      if (phase === 'skip' && lineNo >= o.offset) phase = 'window';
      i = nl + 1;
    }
  };

  let from = bom?.bomBytes ?? 0;
  while (chunk.length > 0) {
    if (o.signal.aborted) return { kind: 'cancelled' };
    if (byteMode && phase !== 'window') {
      const at = scanBytes(chunk, from);
      if (at !== -1 && phase === 'skip') {
        phase = 'window';
        scanText(decoder.decode(chunk.subarray(at), { stream: true }));
      }
    } else {
      scanText(decoder.decode(from > 0 ? chunk.subarray(from) : chunk, { stream: true }));
    }
    from = 0;
    if ((phase as Phase) === 'tail' && !hash) break; // the window is done and the file is too big to hash
    chunk = await readChunk();
  }
  const complete = chunk.length === 0;
  if (complete && (phase as Phase) !== 'tail') {
    if (!byteMode || phase === 'window') scanText(decoder.decode());
    if (phase === 'window' && (curLen > 0 || !lastWasLF)) finishLine();
  }
  const totalLines = complete ? lf + (lastWasLF ? 0 : 1) : null;
  const eol: LineEnding = lf === 0 ? 'none' : crlf === 0 ? 'lf' : crlf === lf ? 'crlf' : 'mixed';
  return {
    kind: 'text',
    lines,
    first: o.offset,
    stop,
    totalLines,
    cutLines,
    sha256: hash && complete ? hash.digest('hex') : null,
    encoding,
    bom: bom !== undefined,
    eol,
  };
}
