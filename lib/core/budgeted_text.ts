/**
 * A result's text written in pieces under the output budget, for a tool whose answer can run to
 * megabytes (grep's whole-tree listings): while the text fits, the pieces are kept; once it outgrows
 * the budget, what was kept and every later piece go straight to a spill file, so only the head the
 * model sees stays in memory, never the whole answer (nor an array of its lines, nor its UTF-8
 * bytes). The result is the one `applyBudget` makes of the joined text, byte for byte — content,
 * marker and spill file (test/core/budgeted_text.test.ts). Main thread or worker alike.
 */
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { type Budget, cutToBudget, DEFAULT_RESULT_BYTES, spillTarget, unwritable } from './budget.ts';
import { errValue, okValue, type Result } from './result.ts';
import { ok, type ResultMeta, type ToolResult } from './tool_result.ts';

/** Where a tool writes its text: budgeted (BudgetedText) or kept whole (WholeText). */
export interface TextOutput {
  write(part: string): void;
  /** The finished answer (`ok`), with `meta`. */
  result(meta?: ResultMeta): ToolResult;
}

/** The text kept whole, for a call without an output budget (the CLI's grep prints everything). */
export class WholeText implements TextOutput {
  readonly #parts: string[] = [];
  write(part: string): void {
    this.#parts.push(part);
  }
  result(meta?: ResultMeta): ToolResult {
    return ok(this.#parts.join(''), meta);
  }
}

/** Characters gathered before each write to the spill file: few system calls, small strings. */
const WRITE_CHARS = 64 * 1024;

export class BudgetedText implements TextOutput {
  readonly #budget: Budget;
  readonly #maxBytes: number;
  /** The pieces so far while they fit; once they do not, one string: the head, just past the budget. */
  #head: string[] = [];
  #totalBytes = 0;
  /** Unset while the text fits; then the open spill file, or why it could not be written. */
  #spill: { fd: number; file: string } | { error: string } | undefined;
  #pending: string[] = [];
  #pendingChars = 0;
  /** A high surrogate that ended the last part, held for the low one that starts the next. */
  #carry = '';
  #finished = false;

  constructor(budget: Budget = {}) {
    this.#budget = budget;
    this.#maxBytes = budget.maxBytes ?? DEFAULT_RESULT_BYTES;
  }

  /** True once `result` made the answer: it is already cut, and must not be cut again. */
  get finished(): boolean {
    return this.#finished;
  }

  write(piece: string): void {
    let part = this.#carry === '' ? piece : this.#carry + piece;
    this.#carry = '';
    // Each part is encoded on its own: a surrogate pair split between two would encode as two
    // replacement characters, so a trailing high surrogate waits for the next part.
    const last = part.charCodeAt(part.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#carry = part.slice(-1);
      part = part.slice(0, -1);
    }
    this.#add(part);
  }

  #add(part: string): void {
    this.#totalBytes += Buffer.byteLength(part, 'utf8');
    if (this.#spill === undefined) {
      this.#head.push(part);
      if (this.#totalBytes > this.#maxBytes) this.#startSpill();
      return;
    }
    if ('error' in this.#spill) return; // only the byte count goes on, for the marker
    this.#pending.push(part);
    this.#pendingChars += part.length;
    if (this.#pendingChars >= WRITE_CHARS) this.#flush();
  }

  result(meta?: ResultMeta): ToolResult {
    if (this.#carry !== '') this.#add(this.#carry); // a lone surrogate at the very end, as a whole text has it
    this.#finished = true;
    const head = this.#head.join('');
    if (this.#spill === undefined) return ok(head, meta);
    this.#flush();
    const spilled = this.#close(this.#spill);
    const { content, truncated } = cutToBudget(head, this.#totalBytes, spilled, this.#maxBytes);
    return ok(content, { ...meta, truncated });
  }

  /** Drops an answer that will not be given (the tool failed after writing): no spill file is left. */
  discard(): void {
    if (this.#finished) return;
    this.#finished = true;
    if (this.#spill && !('error' in this.#spill)) this.#abandon(this.#spill);
  }

  #startSpill(): void {
    const head = this.#head.join('');
    this.#head = [head];
    const file = spillTarget(this.#budget);
    if (!file.ok) {
      this.#spill = { error: file.error };
      return;
    }
    try {
      this.#spill = { fd: openSync(file.value, 'wx', 0o600), file: file.value };
    } catch (e) {
      // A full disk must not turn a result into a crash; the marker says so.
      this.#spill = { error: unwritable(file.value, e) };
      return;
    }
    this.#pending.push(head);
    this.#flush();
  }

  #flush(): void {
    const spill = this.#spill;
    if (!spill || 'error' in spill || this.#pending.length === 0) return;
    const chunk = this.#pending.join('');
    this.#pending = [];
    this.#pendingChars = 0;
    try {
      // A string is encoded on the native side, into a buffer freed at once: no garbage here.
      let at = writeSync(spill.fd, chunk);
      const want = Buffer.byteLength(chunk, 'utf8');
      if (at < want) {
        const bytes = Buffer.from(chunk, 'utf8'); // a short write: the rest from where it stopped
        while (at < want) at += writeSync(spill.fd, bytes, at);
      }
    } catch (e) {
      // A half-written spill file is no whole output: it goes, and the marker says why.
      this.#abandon(spill);
      this.#spill = { error: unwritable(spill.file, e) };
    }
  }

  #close(spill: { fd: number; file: string } | { error: string }): Result<string, string> {
    if ('error' in spill) return errValue(spill.error);
    try {
      closeSync(spill.fd);
      return okValue(spill.file);
    } catch (e) {
      rmSync(spill.file, { force: true });
      return errValue(unwritable(spill.file, e));
    }
  }

  #abandon(spill: { fd: number; file: string }): void {
    try {
      closeSync(spill.fd);
    } catch {
      // already closed
    }
    rmSync(spill.file, { force: true });
  }
}
