/**
 * A command's output in bounded memory: the first and last HEAD_BYTES/TAIL_BYTES kept, the total
 * counted, and — once it outgrows them — the whole stream written to a spill file the result names.
 * Cuts land on UTF-8 character boundaries, and terminal escape sequences are stripped before the text
 * reaches the model or a terminal. Write lane, main thread.
 */

import { randomBytes } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fmtInt, truncationMarker } from '../core/budget.ts';
import type { Result } from '../core/result.ts';
import { charStart, wholeChars } from './utf8_edges.ts';

const HEAD_BYTES = 16 * 1024;
const TAIL_BYTES = 16 * 1024;
/** Beyond this the spill file stops growing (the count goes on): a runaway command must not fill the disk. */
const MAX_SPILL_BYTES = 2 * 1024 ** 3;

export class OutputCollector {
  readonly #head = Buffer.alloc(HEAD_BYTES);
  #headLen = 0;
  readonly #tail = Buffer.alloc(TAIL_BYTES);
  #tailLen = 0; // bytes in the ring
  #tailPos = 0; // next write position in the ring
  #total = 0;
  #spillFd: number | undefined;
  #spillPath: string | undefined;
  #spillBytes = 0;
  #pending: Buffer[] = []; // everything, until the output outgrows head + tail
  #spillRefused: string | undefined;
  /** Why the spill file stopped growing before the output ended (a write failed). */
  #spillStopped: string | undefined;
  readonly #spillDir: () => Result<string, string>;

  /** `spillDir` is asked only when the output outgrows head + tail (lib/core/spill_dir.ts `spillDirFor`). */
  constructor(spillDir: () => Result<string, string>) {
    this.#spillDir = spillDir;
  }

  get total(): number {
    return this.#total;
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    let c = chunk;
    if (this.#headLen < HEAD_BYTES) {
      const n = Math.min(HEAD_BYTES - this.#headLen, c.length);
      c.copy(this.#head, this.#headLen, 0, n);
      this.#headLen += n;
      c = c.subarray(n);
    }
    this.#ring(c);
    if (this.#spillFd === undefined && this.#total <= HEAD_BYTES + TAIL_BYTES) {
      this.#pending.push(chunk);
      return;
    }
    if (this.#spillFd === undefined) this.#openSpill();
    this.#spill(chunk);
  }

  #ring(c: Buffer): void {
    if (c.length >= TAIL_BYTES) {
      c.copy(this.#tail, 0, c.length - TAIL_BYTES);
      this.#tailPos = 0;
      this.#tailLen = TAIL_BYTES;
      return;
    }
    const first = Math.min(c.length, TAIL_BYTES - this.#tailPos);
    c.copy(this.#tail, this.#tailPos, 0, first);
    c.copy(this.#tail, 0, first);
    this.#tailPos = (this.#tailPos + c.length) % TAIL_BYTES;
    this.#tailLen = Math.min(TAIL_BYTES, this.#tailLen + c.length);
  }

  #openSpill(): void {
    const dir = this.#spillDir();
    try {
      if (!dir.ok) throw new Error(dir.error);
      this.#spillPath = path.join(dir.value, `bash-${Date.now()}-${randomBytes(4).toString('hex')}.txt`);
      this.#spillFd = openSync(this.#spillPath, 'wx', 0o600);
      for (const p of this.#pending) this.#spill(p);
    } catch (e) {
      this.#spillRefused = dir.ok
        ? `${this.#spillPath} cannot be written: ${(e as NodeJS.ErrnoException).code ?? e}`
        : dir.error;
      this.#spillPath = undefined;
      this.#spillFd = -1; // could not spill: keep head and tail only
    }
    this.#pending = [];
  }

  #spill(c: Buffer): void {
    if (this.#spillFd === undefined || this.#spillFd < 0 || this.#spillBytes + c.length > MAX_SPILL_BYTES) return;
    let off = 0;
    try {
      while (off < c.length) off += writeSync(this.#spillFd, c, off);
    } catch (e) {
      // A full disk (ENOSPC) or a file size limit: thrown here, in the pipe's data event, it would
      // crash the whole runtime. The spill stops; the answer says how much of the output it holds.
      this.#spillStopped = (e as NodeJS.ErrnoException).code ?? String(e);
      closeSync(this.#spillFd);
      this.#spillFd = -1;
    }
    this.#spillBytes += off;
  }

  /** The text for the model, and where the whole output is when it was cut. */
  finish(): { text: string; spillPath?: string; total: number } {
    if (this.#spillFd !== undefined && this.#spillFd >= 0) closeSync(this.#spillFd);
    if (this.#spillFd === undefined)
      return { text: clean(Buffer.concat(this.#pending).toString('utf8')), total: this.#total };
    const head = this.#head.subarray(0, wholeChars(this.#head, this.#headLen));
    // Spilled output outgrew head + tail, so the ring is full: oldest byte at #tailPos.
    const tailRaw = Buffer.concat([this.#tail.subarray(this.#tailPos), this.#tail.subarray(0, this.#tailPos)]);
    const tail = tailRaw.subarray(charStart(tailRaw));
    const where = this.#spillPath
      ? `the whole output is in "${this.#spillPath}"${this.#spillBytes < this.#total ? ` (its first ${fmtInt(this.#spillBytes)} bytes${this.#spillStopped ? `: writing more failed, ${this.#spillStopped}` : ''})` : ''}; read it with read_file or search it with grep`
      : `the middle could not be saved (${this.#spillRefused})`;
    const marker = truncationMarker(
      `${fmtInt(this.#total)} bytes of output, showing the first ${fmtInt(head.length)} and the last ${fmtInt(tail.length)}`,
      where,
    );
    return {
      text: `${clean(head.toString('utf8'))}\n${marker}\n${clean(tail.toString('utf8'))}`,
      ...(this.#spillPath ? { spillPath: this.#spillPath } : {}),
      total: this.#total,
    };
  }
}

// Escape sequences in their 7-bit (ESC …) and 8-bit (C1, U+0080–U+009F) forms, with what they
// introduce: CSI parameters and final byte; OSC, DCS, SOS, PM and APC strings up to BEL or ST. Then
// any other C0 or C1 control but tab, newline and carriage return. A terminal that honours C1 would
// act on U+009B like on ESC [. Built from a string so the source holds no control characters.
const ST = '(?:\\u0007|\\u001b\\\\|\\u009c)'; // BEL, ESC \ or U+009C
const STRING_BODY = '[^\\u0007\\u001b\\u009c]*';
const ANSI = new RegExp(
  [
    '(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*[@-~]', // CSI: colours, cursor moves, clears
    `(?:\\u001b[\\]PX^_]|[\\u0090\\u0098\\u009d\\u009e\\u009f])${STRING_BODY}${ST}`, // OSC (titles, links), DCS, SOS, PM, APC
    '\\u001b[@-Z\\\\-_]', // other two-byte escapes
    '[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]',
  ].join('|'),
  'g',
);

/** Output as the model should see it: no terminal escape sequences, CRLF as LF. */
export const clean = (s: string) => s.replace(ANSI, '').replace(/\r\n/g, '\n');
