/**
 * Line access over either raw bytes or decoded text, so the searcher can stay on bytes for patterns
 * with a literal (decoding only the lines it prints or must test) and use text for the rest.
 */

export interface Source {
  readonly length: number;
  /** Start of the line holding offset `i`. */
  lineStart(i: number): number;
  /** Offset of the newline that ends the line holding `i`, or `length`. */
  lineEnd(i: number): number;
  /** The text of the line starting at `start`, without its newline or a trailing CR. */
  line(start: number): string;
  /** Newlines in [from, to). */
  newlines(from: number, to: number): number;
}

export class TextSource implements Source {
  readonly #t: string;
  constructor(text: string) {
    this.#t = text;
  }
  get length() {
    return this.#t.length;
  }
  lineStart(i: number) {
    // lastIndexOf clamps a negative start to 0 and would find a newline at 0: guard it.
    return i <= 0 ? 0 : this.#t.lastIndexOf('\n', i - 1) + 1;
  }
  lineEnd(i: number) {
    const e = this.#t.indexOf('\n', i);
    return e === -1 ? this.#t.length : e;
  }
  line(start: number) {
    let end = this.lineEnd(start);
    if (end > start && this.#t.charCodeAt(end - 1) === 13) end--;
    return this.#t.slice(start, end);
  }
  newlines(from: number, to: number) {
    let n = 0;
    for (let i = this.#t.indexOf('\n', from); i !== -1 && i < to; i = this.#t.indexOf('\n', i + 1)) n++;
    return n;
  }
}

export class ByteSource implements Source {
  readonly #b: Buffer;
  constructor(bytes: Buffer) {
    this.#b = bytes;
  }
  get length() {
    return this.#b.length;
  }
  lineStart(i: number) {
    return i <= 0 ? 0 : this.#b.lastIndexOf(10, i - 1) + 1;
  }
  lineEnd(i: number) {
    const e = this.#b.indexOf(10, i);
    return e === -1 ? this.#b.length : e;
  }
  line(start: number) {
    let end = this.lineEnd(start);
    if (end > start && this.#b[end - 1] === 13) end--;
    return this.#b.toString('utf8', start, end);
  }
  newlines(from: number, to: number) {
    return countNewlines(this.#b, from, to);
  }
}

export function countNewlines(buf: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = buf.indexOf(10, from); i !== -1 && i < to; i = buf.indexOf(10, i + 1)) n++;
  return n;
}
