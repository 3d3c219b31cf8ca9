/**
 * Trigrams as the index keys them: three bytes with ASCII letters lower-cased, packed in 24 bits.
 * One key space serves case-sensitive and case-insensitive searches alike: folding only merges keys,
 * so a file holding a literal's bytes always holds the literal's folded trigrams. Bytes are not
 * decoded: a non-ASCII byte is its own key byte. Pure functions; run in workers and inline.
 */

import { IN_CAP, type TrigramModule, trigramModule } from './ngrams_wasm.ts';

const foldByte = (b: number) => (b >= 65 && b <= 90 ? b + 32 : b);
const FOLD = Uint8Array.from({ length: 256 }, (_, b) => foldByte(b));

// One bitset of all 2^24 keys per thread (2 MiB), cleared after each file by the keys it set: the
// WebAssembly module's, which trigramsInto runs in.
let module: TrigramModule | undefined;
let seen: Uint32Array | undefined;
const bitset = (): Uint32Array => {
  module ??= trigramModule(FOLD);
  seen = module.bits;
  return seen;
};

/** This thread's WebAssembly module (dense.ts keeps its table and rows in the module's memory). */
export function trigramWasm(): TrigramModule {
  if (!module) bitset();
  return module as TrigramModule;
}

/** The distinct trigram keys of `bytes`, in first-seen order. */
export function trigramsOf(bytes: Uint8Array): number[] {
  const out = new Uint32Array(Math.max(0, bytes.length - 2));
  return [...out.subarray(0, trigramsInto(bytes, out, 0))];
}

/**
 * Writes the distinct trigram keys of `bytes` (first-seen order) into `out` from `at`, and returns
 * where they end; `out` has room for `bytes.length - 2` more. Straight into the typed array the
 * segment is sorted in: no per-file array, nothing for the collector.
 */
export function trigramsInto(bytes: Uint8Array, out: Uint32Array, at: number): number {
  const bits = seen ?? bitset();
  if (bytes.length <= IN_CAP) return (module as TrigramModule).into(bytes, out, at, 0, -1);
  const n = bytes.length;
  if (n < 3) return at;
  const fold = FOLD;
  const from = at;
  let k = ((fold[bytes[0] as number] as number) << 8) | (fold[bytes[1] as number] as number);
  for (let i = 2; i < n; i++) {
    k = ((k << 8) | (fold[bytes[i] as number] as number)) & 0xffffff;
    const w = k >>> 5;
    const bit = k & 31;
    const word = bits[w] as number;
    // Branch-free: the key is always written and kept only when its bit was clear (whether a
    // trigram is new is unpredictable; a mispredicted branch per byte cost ~20% here).
    bits[w] = word | (1 << bit);
    out[at] = k;
    at += ((word >>> bit) & 1) ^ 1;
  }
  for (let i = from; i < at; i++) bits[(out[i] as number) >>> 5] = 0;
  return at;
}

/**
 * The distinct trigram keys of a large file, in ascending order: its keys are set in the bitset,
 * counted, then `room(count)` gives the array (and the offset) they are written to. One pass over
 * the bytes; the bitset is read twice (2 MiB each).
 */
export function trigramsSorted(bytes: Uint8Array, room: (count: number) => { out: Uint32Array; at: number }): number {
  const carry = { k: 0, seen: 0 };
  setTrigramBits(bytes, carry);
  return drainTrigramBits(room);
}

/**
 * Sets the bits of the trigrams of one piece of a file read in pieces; `carry` holds the last two
 * bytes (and how many were seen) across pieces, starting at { k: 0, seen: 0 }. Then drain (or clear).
 */
export function setTrigramBits(bytes: Uint8Array, carry: { k: number; seen: number }): void {
  const bits = seen ?? bitset();
  const fold = FOLD;
  let k = carry.k;
  let i = 0;
  for (; i < bytes.length && carry.seen + i < 2; i++) k = ((k << 8) | (fold[bytes[i] as number] as number)) & 0xffff;
  if (bytes.length <= IN_CAP) {
    carry.k = (module as TrigramModule).mark(bytes, i, k);
    carry.seen += bytes.length;
    return;
  }
  for (; i < bytes.length; i++) {
    k = ((k << 8) | (fold[bytes[i] as number] as number)) & 0xffffff;
    bits[k >>> 5] = (bits[k >>> 5] as number) | (1 << (k & 31));
  }
  carry.k = k;
  carry.seen += bytes.length;
}

/** Writes the keys set by setTrigramBits, ascending, where `room(count)` says, and clears them. */
export function drainTrigramBits(room: (count: number) => { out: Uint32Array; at: number }): number {
  const bits = seen ?? bitset();
  let count = 0;
  for (let w = 0; w < bits.length; w++) if (bits[w] !== 0) count += popcount(bits[w] as number);
  const { out, at } = room(count);
  let o = at;
  for (let w = 0; w < bits.length; w++) {
    let x = bits[w] as number;
    if (x === 0) continue;
    bits[w] = 0;
    while (x !== 0) {
      const low = x & -x;
      out[o++] = (w << 5) | (31 - Math.clz32(low));
      x ^= low;
    }
  }
  return o;
}

/** Forgets the keys set by setTrigramBits (a file that changed while it was read). */
export function clearTrigramBits(): void {
  seen?.fill(0);
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * The trigram keys every occurrence of `literal` contains. Case-insensitive: only trigrams of ASCII
 * bytes, because the searcher folds only ASCII (a non-ASCII character may match other bytes).
 */
export function literalTrigrams(literal: string, caseInsensitive: boolean): number[] {
  const bytes = Buffer.from(literal, 'utf8');
  const keys = new Set<number>();
  for (let i = 0; i + 2 < bytes.length; i++) {
    const a = bytes[i] as number;
    const b = bytes[i + 1] as number;
    const c = bytes[i + 2] as number;
    if (caseInsensitive && (a > 127 || b > 127 || c > 127)) continue;
    keys.add((foldByte(a) << 16) | (foldByte(b) << 8) | foldByte(c));
  }
  return [...keys];
}
