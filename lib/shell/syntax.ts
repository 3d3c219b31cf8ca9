/**
 * The bash grammar: mvdan/sh's parser (the one behind shfmt), as the `mvdan-sh` package builds it
 * for JavaScript. It is loaded on the first command that needs parsing (about 0.1–0.4 s once per
 * process), never at start. The types below are the part of its syntax tree that shell_parse.ts
 * reads; a node of any other type is treated as a construct it cannot see through.
 */
import { createRequire } from 'node:module';

declare const __MEWCODE_BUNDLE__: boolean | undefined;

interface ShPos {
  Offset(): number;
}

/** A node of mvdan/sh's tree. Fields are read by name; what each type carries is in shell_parse.ts. */
export interface ShNode {
  Pos(): ShPos;
  End(): ShPos;
  // biome-ignore lint/suspicious/noExplicitAny: the parser ships no types; shell_parse.ts reads known fields per node type
  [field: string]: any;
}

interface Syntax {
  NewParser(...options: unknown[]): { Parse(src: string, name: string): ShNode };
  KeepComments(keep: boolean): unknown;
  Variant(lang: unknown): unknown;
  LangBash: unknown;
  NodeType(n: ShNode): string;
}

let parser: { Parse(src: string, name: string): ShNode } | undefined;
let syntax: Syntax | undefined;

function load(): Syntax {
  // In the single-file build esbuild turns this require into the bundled module, still loaded lazily.
  if (typeof __MEWCODE_BUNDLE__ !== 'undefined' && __MEWCODE_BUNDLE__ === true) return require('mvdan-sh').syntax;
  return createRequire(import.meta.url)('mvdan-sh').syntax;
}

/** The type name of a node (`CallExpr`, `Lit`, …). */
export function nodeType(n: ShNode): string {
  syntax ??= load();
  return syntax.NodeType(n);
}

/** A command line that does not parse as bash, with the parser's message. */
export class BashSyntaxError extends Error {}

/**
 * Parses a bash command line; a syntax error is thrown as a BashSyntaxError. Anything else thrown
 * (the parser failing to load) is not the command's fault and is not dressed up as one.
 */
export function parseBash(src: string): ShNode {
  syntax ??= load();
  parser ??= syntax.NewParser(syntax.KeepComments(false), syntax.Variant(syntax.LangBash));
  try {
    return parser.Parse(src, '');
  } catch (e) {
    const msg = e && typeof (e as { Error?: unknown }).Error === 'function' ? (e as { Error(): string }).Error() : e;
    throw new BashSyntaxError(String(msg));
  }
}
