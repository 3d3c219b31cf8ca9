/**
 * The distinct trigram keys of a file's bytes (ngrams.ts `trigramsInto`'s loop) as a tiny
 * hand-assembled WebAssembly module: the per-byte loop is the build's largest cost after the reads,
 * and compiled to WebAssembly it drops the bounds checks and the tagged arithmetic of the JS loop.
 * Same algorithm, same output: each byte ASCII-folded by a table, the key's bit tested and set in a
 * bitset of all 2^24 keys, the key written always and kept only when its bit was clear (no branch),
 * then the kept keys' bits cleared. The bitset is shared with ngrams.ts's JS functions (a view of
 * the module's memory), so there is one per thread.
 *
 * Memory layout: the fold table at [0, 256), the bitset at BITS (2 MiB), the input at IN (IN_CAP
 * bytes), the keys at OUT (4 bytes each, one per input byte at most).
 */

export const IN_CAP = 1 << 20;
const FOLD_AT = 0;
const BITS = 1024;
const IN = BITS + (1 << 21);
const OUT = IN + IN_CAP;
const PAGES = Math.ceil((OUT + 4 * IN_CAP) / 65536);

const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const IF = [0x04, 0x40];
const END = 0x0b;
const BR = 0x0c;
const BR_IF = 0x0d;
const RETURN = 0x0f;
const GET = 0x20;
const SET = 0x21;
const TEE = 0x22;
const LOAD32 = (offset: number) => [0x28, 0x02, ...uleb(offset)];
const LOAD8 = (offset: number) => [0x2d, 0x00, ...uleb(offset)];
const STORE32 = (offset: number) => [0x36, 0x02, ...uleb(offset)];
const CONST = (n: number) => [0x41, ...sleb(n)];
const LT_U = 0x49;
const GE_U = 0x4f;
const ADD = 0x6a;
const AND = 0x71;
const OR = 0x72;
const XOR = 0x73;
const SHL = 0x74;
const SHR_U = 0x76;
const I32 = 0x7f;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const str = (s: string) => [...uleb(s.length), ...Buffer.from(s)];

// tri(n) -> how many distinct keys of the n input bytes were written at OUT.
// param 0 n; locals: 1 i, 2 k, 3 w (the key's bitset word, as an offset), 4 word, 5 bit, 6 at, 7 p.
const tri = [
  ...[GET, 0, ...CONST(3), LT_U, ...IF, ...CONST(0), RETURN, END],
  ...[...CONST(0), ...LOAD8(IN), ...LOAD8(FOLD_AT), ...CONST(8), SHL],
  ...[...CONST(1), ...LOAD8(IN), ...LOAD8(FOLD_AT), OR, SET, 2],
  ...[...CONST(2), SET, 1, ...CONST(0), SET, 6],
  ...BLOCK,
  ...LOOP,
  ...[GET, 1, GET, 0, GE_U, BR_IF, 1],
  // k = ((k << 8) | fold[in[i]]) & 0xffffff
  ...[GET, 2, ...CONST(8), SHL, GET, 1, ...LOAD8(IN), ...LOAD8(FOLD_AT), OR, ...CONST(0xffffff), AND, TEE, 2],
  // w = (k >>> 5) << 2; word = bits[w]; bit = k & 31; bits[w] = word | (1 << bit)
  ...[...CONST(5), SHR_U, ...CONST(2), SHL, TEE, 3, ...LOAD32(BITS)],
  ...[SET, 4, GET, 2, ...CONST(31), AND, SET, 5],
  ...[GET, 3, GET, 4, ...CONST(1), GET, 5, SHL, OR, ...STORE32(BITS)],
  // out[at] = k; at += (((word >>> bit) & 1) ^ 1) << 2
  ...[GET, 6, GET, 2, ...STORE32(OUT)],
  ...[GET, 6, GET, 4, GET, 5, SHR_U, ...CONST(1), AND, ...CONST(1), XOR, ...CONST(2), SHL, ADD, SET, 6],
  ...[GET, 1, ...CONST(1), ADD, SET, 1, BR, 0],
  END,
  END,
  // Clear the kept keys' words.
  ...[...CONST(0), SET, 7],
  ...BLOCK,
  ...LOOP,
  ...[GET, 7, GET, 6, GE_U, BR_IF, 1],
  ...[GET, 7, ...LOAD32(OUT), ...CONST(5), SHR_U, ...CONST(2), SHL, ...CONST(0), ...STORE32(BITS)],
  ...[GET, 7, ...CONST(4), ADD, SET, 7, BR, 0],
  END,
  END,
  ...[GET, 6, ...CONST(2), SHR_U, END],
];

const body = (locals: number[][], code: number[]) => {
  const b = [...vec(locals), ...code];
  return [...uleb(b.length), ...b];
};

const moduleBytes = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, vec([[0x60, 1, I32, 1, I32]])),
  ...section(3, vec([[0]])),
  ...section(5, vec([[0x00, ...uleb(PAGES)]])),
  ...section(
    7,
    vec([
      [...str('tri'), 0x00, 0],
      [...str('mem'), 0x02, 0],
    ]),
  ),
  ...section(10, vec([body([[7, I32]], tri)])),
]);

// The project's type libraries (no DOM) do not declare WebAssembly; this is the part used here.
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}

export interface TrigramModule {
  /** The module's bitset of all 2^24 keys (shared with the JS functions of ngrams.ts). */
  bits: Uint32Array;
  /** Writes the distinct keys of `bytes` (at most IN_CAP of them) into `out` from `at`; returns the end. */
  into(bytes: Uint8Array, out: Uint32Array, at: number): number;
}

/** Compiled once per thread, on first use. */
export function trigramModule(fold: Uint8Array): TrigramModule {
  const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
  const instance = new wasm.Instance(new wasm.Module(moduleBytes));
  const run = instance.exports.tri as (n: number) => number;
  const buffer = (instance.exports.mem as { buffer: ArrayBuffer }).buffer;
  const mem = new Uint8Array(buffer);
  mem.set(fold, FOLD_AT);
  const keys = new Uint32Array(buffer, OUT, IN_CAP);
  return {
    bits: new Uint32Array(buffer, BITS, 1 << 19),
    into(bytes, out, at) {
      mem.set(bytes, IN);
      const count = run(bytes.length);
      out.set(keys.subarray(0, count), at);
      return at + count;
    },
  };
}
