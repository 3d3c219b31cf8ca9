/**
 * A background job's output: every byte goes to the job's own file in the root's spill directory as it
 * arrives, and reads come back from that file from a cursor, so a job writing gigabytes costs the
 * runtime a read buffer, not its output. Each read shows what arrived since the previous one: all of
 * it when it is short, else its first and last READ_PART bytes and the byte range of the middle in the
 * file. Nothing is shown twice; nothing is lost (the file holds all of it, up to MAX_FILE_BYTES).
 * Main thread.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { fmtInt } from '../core/budget.ts';
import { readFdRange } from '../core/read_fd.ts';
import { clean } from './output.ts';
import { charStart, wholeChars } from './utf8_edges.ts';

/** Shown from each end of an unread stretch longer than twice this. */
const READ_PART = 16 * 1024;
/** Beyond this the file stops growing (the count goes on): a runaway job must not fill the disk. */
const MAX_FILE_BYTES = 2 * 1024 ** 3;

/** One read: the text since the cursor, and the byte range of the output it covers. */
export interface OutputRead {
  text: string;
  /** The output's byte offsets this read covered: [from, to). */
  from: number;
  to: number;
  /** Bytes of [from, to) not in `text`, left in the file. */
  skipped: number;
}

export class JobOutput {
  readonly path: string;
  #fd: number;
  #written = 0;
  #total = 0;
  #failure: string | undefined;

  /** Creates the file (0600, never an existing one): throws the system's error when it cannot. */
  constructor(file: string) {
    this.path = file;
    this.#fd = openSync(file, 'wx', 0o600);
  }

  /** Bytes the command wrote so far (the file holds min(total, MAX_FILE_BYTES)). */
  get total(): number {
    return this.#total;
  }

  get written(): number {
    return this.#written;
  }

  /** Why the file stopped before the output ended: a write failed (ENOSPC…); the count goes on. */
  get failure(): string | undefined {
    return this.#failure;
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    if (this.#fd < 0 || this.#written + chunk.length > MAX_FILE_BYTES) return;
    let off = 0;
    try {
      while (off < chunk.length) off += writeSync(this.#fd, chunk, off);
    } catch (e) {
      // A full disk or a file size limit: thrown here, in the pipe's data event, it would crash the
      // runtime and every job with it. The file keeps what it has; the job runs on.
      this.#failure = (e as NodeJS.ErrnoException).code ?? String(e);
      this.close();
    }
    this.#written += off;
  }

  /** No more output comes; reads go on. */
  close(): void {
    if (this.#fd >= 0) closeSync(this.#fd);
    this.#fd = -1;
  }

  /**
   * What arrived after `cursor`, up to what is in the file. `ended`: the job's output is complete, so
   * a character cut at the end is shown (as U+FFFD) instead of waiting for its next bytes.
   */
  readFrom(cursor: number, ended: boolean): OutputRead {
    const end = this.#written;
    if (end - cursor <= 2 * READ_PART) {
      const raw = this.#bytes(cursor, end);
      const keep = ended ? raw.length : wholeChars(raw);
      return { text: clean(raw.subarray(0, keep).toString('utf8')), from: cursor, to: cursor + keep, skipped: 0 };
    }
    const head = this.#bytes(cursor, cursor + READ_PART);
    const headLen = wholeChars(head);
    const tailRaw = this.#bytes(end - READ_PART, end);
    const tailFrom = charStart(tailRaw);
    const tailLen = ended ? tailRaw.length : tailFrom + wholeChars(tailRaw.subarray(tailFrom));
    const middleFrom = cursor + headLen;
    const middleTo = end - READ_PART + tailFrom;
    const marker = `[${fmtInt(middleTo - middleFrom)} bytes not shown: bytes ${fmtInt(middleFrom)}–${fmtInt(middleTo)} of the output in "${this.path}"; read_file or grep it]`;
    const text = `${clean(head.subarray(0, headLen).toString('utf8'))}\n${marker}\n${clean(tailRaw.subarray(tailFrom, tailLen).toString('utf8'))}`;
    return { text, from: cursor, to: end - READ_PART + tailLen, skipped: middleTo - middleFrom };
  }

  /**
   * For a filter: the whole lines after `cursor` (a line still being written waits for its end unless
   * the job `ended`), at most the last `maxBytes` of them; `skipped` counts the bytes before those.
   */
  linesFrom(cursor: number, ended: boolean, maxBytes: number): OutputRead {
    const end = this.#written;
    const from = Math.max(cursor, end - maxBytes);
    const raw = this.#bytes(from, end);
    const lastNewline = raw.lastIndexOf(10);
    const keep = ended ? raw.length : lastNewline + 1;
    // Cut at the scan's start: drop the partial line it begins in (it is among the skipped bytes).
    const start = from > cursor ? raw.indexOf(10) + 1 : 0;
    const body = start > 0 && start <= keep ? raw.subarray(start, keep) : raw.subarray(0, keep);
    const skipped = from - cursor + (start > 0 && start <= keep ? start : 0);
    return { text: clean(body.toString('utf8')), from: cursor, to: from + keep, skipped };
  }

  /** The last `n` bytes of what the file holds, as text. */
  tail(n: number): string {
    return this.#bytes(Math.max(0, this.#written - n), this.#written).toString('utf8');
  }

  /** Bytes [from, to) of the file, read through a descriptor of its own (the writer's is append-only). */
  #bytes(from: number, to: number): Buffer {
    const fd = openSync(this.path, 'r');
    try {
      return readFdRange(fd, from, to - from);
    } finally {
      closeSync(fd);
    }
  }
}
