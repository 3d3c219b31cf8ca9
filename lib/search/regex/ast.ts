/**
 * The syntax tree of a ripgrep (Rust regex) pattern, as the parser leaves it: flags are already
 * applied to the nodes they govern (case-insensitivity on each literal and class, `s` on each dot,
 * `m` on each anchor, `U` on each repetition), so translation and literal extraction need no flag state.
 */

/** A set of characters in a class, before translation to a JavaScript `v`-flag class. */
export type ClassSet =
  | { k: 'range'; lo: number; hi: number }
  /**
   * Already JavaScript `v`-class syntax: `\p{…}` or a bracketed class. Perl classes (`\w`, `\d`, `\s`)
   * also carry `fast`, the same set as a group that tests ASCII first (see parse_class.ts).
   */
  | { k: 'js'; src: string; fast?: string }
  | { k: 'union'; neg: boolean; items: ClassSet[] }
  | { k: 'op'; op: '&&' | '--' | '~~'; left: ClassSet; right: ClassSet };

export type Assertion =
  | 'lineStart'
  | 'lineEnd'
  | 'textStart'
  | 'textEnd'
  | 'word'
  | 'notWord'
  | 'wordStart'
  | 'wordEnd'
  | 'wordStartHalf'
  | 'wordEndHalf';

export type Node =
  | { t: 'empty' }
  | { t: 'lit'; cp: number; ci: boolean }
  /** `nl`: also matches a newline (flag s); `crlf`: excludes `\r` too (flag R). */
  | { t: 'dot'; nl: boolean; crlf: boolean }
  | { t: 'class'; set: ClassSet; ci: boolean; ascii: boolean }
  | { t: 'assert'; kind: Assertion; ascii: boolean }
  | { t: 'group'; capture: boolean; name?: string; node: Node }
  /** Lookahead and lookbehind: an extension (rg rejects them without -P), kept with JavaScript's meaning. */
  | { t: 'look'; behind: boolean; neg: boolean; node: Node }
  | { t: 'cat'; nodes: Node[] }
  | { t: 'alt'; nodes: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number; greedy: boolean };

/** Rust's flags; `m` is on by default as in ripgrep, which searches line by line. */
export interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  U: boolean;
  u: boolean;
  x: boolean;
  R: boolean;
}
