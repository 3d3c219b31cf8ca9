/**
 * Case-insensitive search for a required ASCII literal on raw bytes. The common path is exact: the
 * SIMD byte search of fold_wasm.ts, which folds ASCII case as rg and the `iv` line regex do. Unicode
 * simple case folding also joins two non-ASCII characters to ASCII letters — K (U+212A, bytes E2 84 AA)
 * to k and ſ (U+017F, bytes C5 BF) to s — so for a literal with k or s, a region holding either byte
 * sequence (rare) takes the old path instead: a case-insensitive regex over a latin1 view with those
 * sequences as alternatives. That path over-approximates (under `i`, \xE2 also matches \xC2), so its
 * candidate lines are confirmed by the line regex: `exact` is false.
 */
import { FoldedHaystack, LIT_CAP, type PreparedLiteral } from './fold_wasm.ts';

/** Regions larger than this (only a whole UTF-16 file can be) are not copied into the module's memory. */
export const MAX_HAYSTACK = 9 * 1024 * 1024;

/**
 * Printable ASCII (letters folded) from the most to the least frequent in source code, counted over
 * this repository's TypeScript; the two rarest bytes of a literal are the ones compared first.
 */
const BY_FREQUENCY = ` etsrnoailcd'.phu,()mf;:g=w}{y/bxkv*[]\`-\\_0>?$1jq|+&"2!<z34865#9^7@~%\t`;

/** `whole`: the byte search covers the whole literal (it is cut at LIT_CAP bytes). */
interface FoldedLiteral extends PreparedLiteral {
  /** The literal, lowercase ASCII. */
  text: string;
  /** It has k or s, which K and ſ fold to. */
  foldsNonAscii: boolean;
}

const prepared = new Map<string, FoldedLiteral>();
/** The literal prepared once per thread (a pattern's regions all share it). */
export function foldedLiteral(lowerAscii: string, fold = true): FoldedLiteral {
  const key = (fold ? 'i' : 'c') + lowerAscii;
  let lit = prepared.get(key);
  if (!lit) {
    lit = prepare(lowerAscii, fold);
    if (prepared.size > 64) prepared.clear();
    prepared.set(key, lit);
  }
  return lit;
}

/**
 * A case-sensitive literal (its bytes as latin1) for the same search, every mask 0: on large regions
 * the two-rare-bytes SIMD search beats `Buffer.indexOf`, which scans for the literal's first byte.
 */
export const exactLiteral = (bytes: Buffer) => foldedLiteral(bytes.toString('latin1'), false);

function prepare(lowerAscii: string, fold: boolean): FoldedLiteral {
  const text = lowerAscii.slice(0, LIT_CAP);
  const lower = Uint8Array.from(Buffer.from(text, 'latin1'));
  const masks = lower.map((b) => (fold && b >= 0x61 && b <= 0x7a ? 0x20 : 0));
  const rank = (i: number) => {
    const r = BY_FREQUENCY.indexOf(text[i] as string);
    return r === -1 ? BY_FREQUENCY.length : r; // not in the table: rarer than anything in it
  };
  const positions = [...lower.keys()].sort((a, b) => rank(b) - rank(a) || a - b);
  const i1 = positions[0] ?? 0;
  const i2 = positions[1] ?? i1;
  return {
    text,
    lower,
    masks,
    i1,
    i2,
    whole: text.length === lowerAscii.length,
    foldsNonAscii: fold && /[ks]/.test(text),
  };
}

/** One region's view for the literal: occurrences from an offset, and whether they are exact. */
export interface FoldedView {
  find(from: number): number;
  exact: boolean;
}

export function foldedView(bytes: Buffer, lit: FoldedLiteral): FoldedView {
  if (bytes.length <= MAX_HAYSTACK) {
    const hay = new FoldedHaystack(bytes, lit);
    if (!(lit.foldsNonAscii && hay.holdsFolds())) return hay;
  }
  return new RegexView(bytes.toString('latin1'), foldedRe(lit.text));
}

class RegexView implements FoldedView {
  readonly exact = false;
  readonly #latin1: string;
  readonly #re: RegExp;
  constructor(latin1: string, re: RegExp) {
    this.#latin1 = latin1;
    this.#re = re;
  }
  find(from: number): number {
    this.#re.lastIndex = from;
    return this.#re.exec(this.#latin1)?.index ?? -1;
  }
}

// The fallback's scanner, one per literal: ASCII folding is that of the `iv` regex (a latin1 string
// is one character a byte) and K and ſ are spelled out as their bytes.
const FOLDS: Record<string, string> = { k: '(?:k|\\xE2\\x84\\xAA)', s: '(?:s|\\xC5\\xBF)' };
const foldedCache = new Map<string, RegExp>();
function foldedRe(lit: string): RegExp {
  let re = foldedCache.get(lit);
  if (!re) {
    const source = lit.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&').replace(/[ks]/g, (c) => FOLDS[c] as string);
    re = new RegExp(source, 'gi');
    if (foldedCache.size > 64) foldedCache.clear();
    foldedCache.set(lit, re);
  }
  return re;
}
