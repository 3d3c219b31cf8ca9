/**
 * The distinct trigram keys of a file's bytes (ngrams.ts `trigramsInto`'s loop) as a tiny
 * hand-assembled WebAssembly module: the per-byte loop is the build's largest cost after the reads,
 * and compiled to WebAssembly it drops the bounds checks and the tagged arithmetic of the JS loop.
 * Same algorithm, same output: each byte ASCII-folded by a table, the key's bit tested and set in a
 * bitset of all 2^24 keys, the key written always and kept only when its bit was clear (no branch),
 * then the kept keys' bits cleared. The bitset is shared with ngrams.ts's JS functions (a view of
 * the module's memory), so there is one per thread.
 *
 * The same call then moves a segment's dense keys (dense.ts) to their bitmap rows, looked up in the
 * dense keys' table, which lives in this memory too (the lookup was the next largest JS cost).
 *
 * Memory layout: the fold table at [0, 256), the bitset at BITS (2 MiB), the input at IN (IN_CAP
 * bytes), the keys at OUT (4 bytes each, one per input byte at most), the dense keys' table at
 * TABLE_KEYS and TABLE_SLOTS (i32 each), their rows at ROWS.
 */

import {
  ADD,
  AND,
  BLOCK,
  BR,
  BR_IF,
  body,
  ELSE,
  END,
  EQ,
  GE_U,
  GET,
  I32,
  IF,
  LOAD8,
  LOOP,
  LT_U,
  OR,
  RETURN,
  SET,
  section,
  sleb,
  str,
  TEE,
  uleb,
  vec,
} from '../wasm_asm.ts';

export const IN_CAP = 1 << 20;
/** Entries of the dense keys' open-addressing table, and its hash (dense.ts inserts with it). */
export const TABLE_BITS = 13;
export const tableHash = (key: number) => Math.imul(key, 0x9e3779b1) >>> (32 - TABLE_BITS);
/** Bytes of the dense keys' rows. */
export const ROWS_BYTES = 1 << 21;
const FOLD_AT = 0;
const BITS = 1024;
const IN = BITS + (1 << 21);
const OUT = IN + IN_CAP;
export const TABLE_KEYS = OUT + 4 * IN_CAP;
export const TABLE_SLOTS = TABLE_KEYS + 4 * (1 << TABLE_BITS);
export const ROWS = TABLE_SLOTS + 4 * (1 << TABLE_BITS);
const PAGES = Math.ceil((ROWS + ROWS_BYTES) / 65536);

const LOAD32 = (offset: number) => [0x28, 0x02, ...uleb(offset)];
const STORE8 = (offset: number) => [0x3a, 0x00, ...uleb(offset)];
const LT_S = 0x48;
/** Where tri leaves the count of all the distinct keys (before the dense ones are taken out). */
const TOTAL = 1020;
const STORE32 = (offset: number) => [0x36, 0x02, ...uleb(offset)];
const CONST = (n: number) => [0x41, ...sleb(n)];
const MUL = 0x6c;
const XOR = 0x73;
const SHL = 0x74;
const SHR_U = 0x76;

// tri(n, rowBytes, file) -> how many distinct keys of the n input bytes were written at OUT; with
// file >= 0, the dense keys among them are set in their rows instead (file's bit) and not written,
// and the count of all of them is left at TOTAL.
// params 0 n, 1 rowBytes, 2 file; locals: 3 i, 4 k, 5 w (the key's bitset word, as an offset),
// 6 word, 7 bit, 8 at, 9 p, 10 h, 11 t.
const tri = [
  ...[...CONST(TOTAL), ...CONST(0), ...STORE32(0)],
  ...[GET, 0, ...CONST(3), LT_U, ...IF, ...CONST(0), RETURN, END],
  ...[...CONST(0), ...LOAD8(IN), ...LOAD8(FOLD_AT), ...CONST(8), SHL],
  ...[...CONST(1), ...LOAD8(IN), ...LOAD8(FOLD_AT), OR, SET, 4],
  ...[...CONST(2), SET, 3, ...CONST(0), SET, 8],
  ...BLOCK,
  ...LOOP,
  ...[GET, 3, GET, 0, GE_U, BR_IF, 1],
  // k = ((k << 8) | fold[in[i]]) & 0xffffff
  ...[GET, 4, ...CONST(8), SHL, GET, 3, ...LOAD8(IN), ...LOAD8(FOLD_AT), OR, ...CONST(0xffffff), AND, TEE, 4],
  // w = (k >>> 5) << 2; word = bits[w]; bit = k & 31; bits[w] = word | (1 << bit)
  ...[...CONST(5), SHR_U, ...CONST(2), SHL, TEE, 5, ...LOAD32(BITS)],
  ...[SET, 6, GET, 4, ...CONST(31), AND, SET, 7],
  ...[GET, 5, GET, 6, ...CONST(1), GET, 7, SHL, OR, ...STORE32(BITS)],
  // out[at] = k; at += (((word >>> bit) & 1) ^ 1) << 2
  ...[GET, 8, GET, 4, ...STORE32(OUT)],
  ...[GET, 8, GET, 6, GET, 7, SHR_U, ...CONST(1), AND, ...CONST(1), XOR, ...CONST(2), SHL, ADD, SET, 8],
  ...[GET, 3, ...CONST(1), ADD, SET, 3, BR, 0],
  END,
  END,
  // Clear the kept keys' words.
  ...[...CONST(0), SET, 9],
  ...BLOCK,
  ...LOOP,
  ...[GET, 9, GET, 8, GE_U, BR_IF, 1],
  ...[GET, 9, ...LOAD32(OUT), ...CONST(5), SHR_U, ...CONST(2), SHL, ...CONST(0), ...STORE32(BITS)],
  ...[GET, 9, ...CONST(4), ADD, SET, 9, BR, 0],
  END,
  END,
  ...[...CONST(TOTAL), GET, 8, ...CONST(2), SHR_U, ...STORE32(0)],
  ...[GET, 2, ...CONST(0), LT_S, ...IF, GET, 8, ...CONST(2), SHR_U, RETURN, END],
  // Dense keys: p reads, i writes (offsets into OUT); bit = 1 << (file & 7); file = file >>> 3.
  ...[...CONST(1), GET, 2, ...CONST(7), AND, SHL, SET, 7, GET, 2, ...CONST(3), SHR_U, SET, 2],
  ...[...CONST(0), SET, 9, ...CONST(0), SET, 3],
  ...BLOCK,
  ...LOOP,
  ...[GET, 9, GET, 8, GE_U, BR_IF, 1],
  ...[GET, 9, ...LOAD32(OUT), SET, 4],
  // h = (k * 0x9e3779b1) >>> (32 - TABLE_BITS), probing on while the entry is neither k nor empty.
  ...[GET, 4, ...CONST(0x9e3779b1 | 0), MUL, ...CONST(32 - TABLE_BITS), SHR_U, SET, 10],
  ...BLOCK,
  ...LOOP,
  ...[GET, 10, ...CONST(2), SHL, ...LOAD32(TABLE_KEYS), TEE, 11, GET, 4, EQ, BR_IF, 1],
  ...[GET, 11, ...CONST(-1), EQ, BR_IF, 1],
  ...[GET, 10, ...CONST(1), ADD, ...CONST((1 << TABLE_BITS) - 1), AND, SET, 10, BR, 0],
  END,
  END,
  ...[GET, 11, ...CONST(-1), EQ],
  ...IF,
  ...[GET, 3, GET, 4, ...STORE32(OUT), GET, 3, ...CONST(4), ADD, SET, 3],
  ELSE,
  // rows[slot * rowBytes + byte] |= bit
  ...[GET, 10, ...CONST(2), SHL, ...LOAD32(TABLE_SLOTS), GET, 1, MUL, GET, 2, ADD, TEE, 5],
  ...[GET, 5, ...LOAD8(ROWS), GET, 7, OR, ...STORE8(ROWS)],
  END,
  ...[GET, 9, ...CONST(4), ADD, SET, 9, BR, 0],
  END,
  END,
  ...[GET, 3, ...CONST(2), SHR_U, END],
];

// mark(from, n, k) -> k: sets the bits of the keys of input bytes [from, n), k holding the two bytes
// before `from`; returns the last key. params 0 from, 1 n, 2 k.
const mark = [
  ...BLOCK,
  ...LOOP,
  ...[GET, 0, GET, 1, GE_U, BR_IF, 1],
  ...[GET, 2, ...CONST(8), SHL, GET, 0, ...LOAD8(IN), ...LOAD8(FOLD_AT), OR, ...CONST(0xffffff), AND, TEE, 2],
  ...[...CONST(5), SHR_U, ...CONST(2), SHL, TEE, 3],
  ...[GET, 3, ...LOAD32(BITS), ...CONST(1), GET, 2, ...CONST(31), AND, SHL, OR, ...STORE32(BITS)],
  ...[GET, 0, ...CONST(1), ADD, SET, 0, BR, 0],
  END,
  END,
  ...[GET, 2, END],
];

const moduleBytes = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, vec([[0x60, 3, I32, I32, I32, 1, I32]])),
  ...section(3, vec([[0], [0]])),
  ...section(5, vec([[0x00, ...uleb(PAGES)]])),
  ...section(
    7,
    vec([
      [...str('tri'), 0x00, 0],
      [...str('mark'), 0x00, 1],
      [...str('mem'), 0x02, 0],
    ]),
  ),
  ...section(10, vec([body([[9, I32]], tri), body([[1, I32]], mark)])),
]);

// The project's type libraries (no DOM) do not declare WebAssembly; this is the part used here.
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}

export interface TrigramModule {
  /** The module's memory: the dense keys' table and rows are views of it. */
  buffer: ArrayBuffer;
  /** The module's bitset of all 2^24 keys (shared with the JS functions of ngrams.ts). */
  bits: Uint32Array;
  /**
   * Writes the distinct keys of `bytes` (at most IN_CAP of them) into `out` from `at`; returns the
   * end. With `file` >= 0, the dense keys are set in their rows (`rowBytes` long) instead.
   */
  into(bytes: Uint8Array, out: Uint32Array, at: number, rowBytes: number, file: number): number;
  /** How many distinct keys the last `into` found, the dense ones included. */
  total(): number;
  /** Sets the bits of the keys of `bytes` from `from`, `k` holding the two bytes before; the last key. */
  mark(bytes: Uint8Array, from: number, k: number): number;
}

/** Compiled once per thread, on first use. */
export function trigramModule(fold: Uint8Array): TrigramModule {
  const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
  const instance = new wasm.Instance(new wasm.Module(moduleBytes));
  const run = instance.exports.tri as (n: number, rowBytes: number, file: number) => number;
  const runMark = instance.exports.mark as (from: number, n: number, k: number) => number;
  const buffer = (instance.exports.mem as { buffer: ArrayBuffer }).buffer;
  const mem = new Uint8Array(buffer);
  mem.set(fold, FOLD_AT);
  const keys = new Uint32Array(buffer, OUT, IN_CAP);
  const words = new Uint32Array(buffer, 0, 256);
  return {
    buffer,
    bits: new Uint32Array(buffer, BITS, 1 << 19),
    into(bytes, out, at, rowBytes, file) {
      mem.set(bytes, IN);
      const count = run(bytes.length, rowBytes, file);
      out.set(keys.subarray(0, count), at);
      return at + count;
    },
    total: () => words[TOTAL >>> 2] as number,
    mark(bytes, from, k) {
      mem.set(bytes, IN);
      return runMark(from, bytes.length, k);
    },
  };
}
