/**
 * How many bytes of UTF-8 a match of a pattern can span at most, when that is bounded and the
 * pattern's matches depend on nothing around them. Then a candidate line can be confirmed from a
 * window around each occurrence of the pattern's required literal instead of the whole line, which
 * matters for a minified file whose one line is megabytes long (hits.ts): every match contains an
 * occurrence, and so lies within `span` bytes of it on either side.
 */
import type { Node } from './ast.ts';

/** Above this many characters a window would be as costly as the line it saves decoding. */
const MAX_CHARS = 4096;

/**
 * The bound in bytes (4 per character: a character is one to four bytes, an invalid byte one), or
 * undefined: unbounded repetition, an assertion or a lookaround (anchors, `\b`: a match would depend
 * on what lies outside the window, whose edges are not the line's).
 */
export function matchSpan(node: Node): number | undefined {
  const chars = maxChars(node);
  return chars !== undefined && chars <= MAX_CHARS ? 4 * chars : undefined;
}

/**
 * Whether the pattern's matches depend on nothing around them (no anchor, `\b` or lookaround): then
 * a match in any stretch of a line, its edges on character boundaries, is a match in the line.
 */
export function isLocal(n: Node): boolean {
  switch (n.t) {
    case 'assert':
    case 'look':
      return false;
    case 'group':
    case 'rep':
      return isLocal(n.node);
    case 'cat':
    case 'alt':
      return n.nodes.every(isLocal);
    default:
      return true;
  }
}

function maxChars(n: Node): number | undefined {
  switch (n.t) {
    case 'empty':
      return 0;
    case 'lit':
    case 'dot':
    case 'class':
      return 1;
    case 'assert':
    case 'look':
      return undefined;
    case 'group':
      return maxChars(n.node);
    case 'cat':
    case 'alt': {
      let total = 0;
      for (const x of n.nodes) {
        const k = maxChars(x);
        if (k === undefined) return undefined;
        total = n.t === 'cat' ? total + k : Math.max(total, k);
      }
      return total;
    }
    case 'rep': {
      if (!Number.isFinite(n.max)) return undefined;
      const k = maxChars(n.node);
      return k === undefined ? undefined : k * n.max;
    }
  }
}
