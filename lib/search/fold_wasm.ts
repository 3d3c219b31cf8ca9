/**
 * An ASCII case-folded substring search over raw bytes, as a tiny hand-assembled WebAssembly module
 * with 128-bit SIMD (Node has no native case-insensitive byte search: the alternative is a latin1
 * string copy and a case-insensitive regex, ~3× slower). The algorithm is the "packed pair" one of
 * ripgrep's memchr crate: two chosen bytes of the literal are compared at 16 candidate starts at
 * once, `b | mask == lower` (mask 0x20 for a letter, so both cases match; 0 for any other byte), and
 * only starts where both agree are verified over the whole literal the same way. Exact for ASCII
 * case folding; the non-ASCII letters Unicode folds to ASCII ones are folded_literal.ts's concern.
 *
 * Memory: the literal's lowercase bytes at [0, LIT_CAP), its masks at [LIT_CAP, 2·LIT_CAP), haystack at HAY.
 */

import { onStopped } from '../core/watchdog.ts';
import {
  ADD,
  AND,
  BLOCK,
  BR,
  BR_IF,
  body,
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
  str,
  TEE,
  vec,
} from './wasm_asm.ts';

export const LIT_CAP = 256;
export const HAY = 2 * LIT_CAP;

// Opcodes only this module uses (WebAssembly 2.0 core + fixed-width SIMD; the shared ones in wasm_asm.ts).
const CALL = 0x10;
const CONST = 0x41;
const EQZ = 0x45;
const NE = 0x47;
const GT_S = 0x4a;
const LE_S = 0x4c;
const GE_S = 0x4e;
const CTZ = 0x68;
const SUB = 0x6b;
const V128_LOAD = [0xfd, 0x00, 0x00, 0x00];
const SPLAT = [0xfd, 0x0f];
const EQ8 = [0xfd, 0x23];
const V_AND = [0xfd, 0x4e];
const V_OR = [0xfd, 0x50];
const BITMASK = [0xfd, 0x64];

// verify(at, litLen) -> 1 when bytes [at, at+litLen) equal the literal under the masks.
// params: 0 at, 1 litLen; local 2 j.
const verify = [
  ...[CONST, 0, SET, 2],
  ...BLOCK,
  ...LOOP,
  ...[GET, 2, GET, 1, GE_U, BR_IF, 1],
  ...[GET, 0, GET, 2, ADD, ...LOAD8(0), GET, 2, ...LOAD8(LIT_CAP), OR, GET, 2, ...LOAD8(0), NE],
  ...[...IF, CONST, 0, RETURN, END],
  ...[GET, 2, CONST, 1, ADD, SET, 2, BR, 0],
  END,
  END,
  ...[CONST, 1, END],
];

// find(hay, len, from, litLen, i1, i2) -> the first start >= from of the literal in [hay, hay+len), or -1.
// params: 0 hay, 1 len, 2 from, 3 litLen, 4 i1, 5 i2 (the two compared positions of the literal);
// i32 locals: 6 last (last possible start), 7 p, 8 mask, 9 at; v128 locals: 10 c1, 11 m1, 12 c2, 13 m2.
const find = [
  ...[GET, 1, GET, 3, LT_U, ...IF, CONST, 0x7f, RETURN, END],
  ...[GET, 1, GET, 3, SUB, SET, 6],
  ...[GET, 4, ...LOAD8(0), ...SPLAT, SET, 10, GET, 4, ...LOAD8(LIT_CAP), ...SPLAT, SET, 11],
  ...[GET, 5, ...LOAD8(0), ...SPLAT, SET, 12, GET, 5, ...LOAD8(LIT_CAP), ...SPLAT, SET, 13],
  ...[GET, 2, SET, 7],
  // 16 starts at a time while all 16 are possible starts (so every load stays inside the haystack).
  ...BLOCK,
  ...LOOP,
  ...[GET, 7, CONST, 15, ADD, GET, 6, GT_S, BR_IF, 1],
  ...[GET, 0, GET, 7, ADD, GET, 4, ADD, ...V128_LOAD, GET, 11, ...V_OR, GET, 10, ...EQ8],
  ...[GET, 0, GET, 7, ADD, GET, 5, ADD, ...V128_LOAD, GET, 13, ...V_OR, GET, 12, ...EQ8],
  ...[...V_AND, ...BITMASK, SET, 8],
  ...BLOCK,
  ...LOOP,
  ...[GET, 8, EQZ, BR_IF, 1],
  ...[GET, 7, GET, 8, CTZ, ADD, SET, 9],
  ...[GET, 0, GET, 9, ADD, GET, 3, CALL, 0, ...IF, GET, 9, RETURN, END],
  ...[GET, 8, GET, 8, CONST, 1, SUB, AND, SET, 8, BR, 0],
  END,
  END,
  ...[GET, 7, CONST, 16, ADD, SET, 7, BR, 0],
  END,
  END,
  // The last starts one at a time.
  ...BLOCK,
  ...LOOP,
  ...[GET, 7, GET, 6, GT_S, BR_IF, 1],
  ...[GET, 0, GET, 7, ADD, GET, 3, CALL, 0, ...IF, GET, 7, RETURN, END],
  ...[GET, 7, CONST, 1, ADD, SET, 7, BR, 0],
  END,
  END,
  ...[CONST, 0x7f, END],
];

// isFoldAt(hay, q, len) -> 1 when ſ (C5 BF) or K (E2 84 AA) starts at hay+q, inside [hay, hay+len).
// params: 0 hay, 1 q, 2 len. Both tests are computed in full: their reads stay below hay+len+16.
const isFoldAt = [
  ...[GET, 1, CONST, 2, ADD, GET, 2, LE_S],
  ...[GET, 0, GET, 1, ADD, ...LOAD8(0), CONST, 0xc5, 0x01, EQ, AND],
  ...[GET, 0, GET, 1, ADD, ...LOAD8(1), CONST, 0xbf, 0x01, EQ, AND],
  ...[GET, 1, CONST, 3, ADD, GET, 2, LE_S],
  ...[GET, 0, GET, 1, ADD, ...LOAD8(0), CONST, 0xe2, 0x01, EQ, AND],
  ...[GET, 0, GET, 1, ADD, ...LOAD8(1), CONST, 0x84, 0x01, EQ, AND],
  ...[GET, 0, GET, 1, ADD, ...LOAD8(2), CONST, 0xaa, 0x01, EQ, AND],
  ...[OR, END],
];

// folds(hay, len) -> 1 when the region holds ſ or K: 16 bytes at a time, looking for their first bytes.
// params: 0 hay, 1 len; i32 locals: 2 p, 3 mask, 4 q; v128 locals: 5 C5, 6 E2, 7 the block.
const folds = [
  ...[CONST, 0xc5, 0x01, ...SPLAT, SET, 5, CONST, 0xe2, 0x01, ...SPLAT, SET, 6, CONST, 0, SET, 2],
  ...BLOCK,
  ...LOOP,
  ...[GET, 2, CONST, 16, ADD, GET, 1, GT_S, BR_IF, 1],
  ...[GET, 0, GET, 2, ADD, ...V128_LOAD, TEE, 7, GET, 5, ...EQ8, GET, 7, GET, 6, ...EQ8, ...V_OR, ...BITMASK, SET, 3],
  ...BLOCK,
  ...LOOP,
  ...[GET, 3, EQZ, BR_IF, 1],
  ...[GET, 0, GET, 2, GET, 3, CTZ, ADD, GET, 1, CALL, 2, ...IF, CONST, 1, RETURN, END],
  ...[GET, 3, GET, 3, CONST, 1, SUB, AND, SET, 3, BR, 0],
  END,
  END,
  ...[GET, 2, CONST, 16, ADD, SET, 2, BR, 0],
  END,
  END,
  ...BLOCK,
  ...LOOP,
  ...[GET, 2, GET, 1, GE_S, BR_IF, 1],
  ...[GET, 0, GET, 2, GET, 1, CALL, 2, ...IF, CONST, 1, RETURN, END],
  ...[GET, 2, CONST, 1, ADD, SET, 2, BR, 0],
  END,
  END,
  ...[CONST, 0, END],
];

const V128 = 0x7b;

const moduleBytes = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(
    1,
    vec([
      [0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [I32]]), 1, I32],
      [0x60, 2, I32, I32, 1, I32],
      [0x60, 3, I32, I32, I32, 1, I32],
    ]),
  ),
  // func 0 verify (type 1), 1 find (type 0), 2 isFoldAt (type 2), 3 folds (type 1)
  ...section(3, vec([[1], [0], [2], [1]])),
  ...section(5, vec([[0x00, 1]])), // one memory, at least one page
  ...section(
    7,
    vec([
      [...str('find'), 0x00, 1],
      [...str('folds'), 0x00, 3],
      [...str('mem'), 0x02, 0],
    ]),
  ),
  ...section(
    10,
    vec([
      body([[1, I32]], verify),
      body(
        [
          [4, I32],
          [4, V128],
        ],
        find,
      ),
      body([], isFoldAt),
      body(
        [
          [3, I32],
          [3, V128],
        ],
        folds,
      ),
    ]),
  ),
]);

// Compiled on first use (the searcher's read buffer is the module's memory, see haystackBuffer).
let wasmFind: (hay: number, len: number, from: number, litLen: number, i1: number, i2: number) => number;
let wasmFolds: (hay: number, len: number) => number;
let memory: WasmMemory | undefined;
let mem = new Uint8Array(0);
// The project's type libraries (no DOM) do not declare WebAssembly; this is the part used here.
type WasmMemory = { buffer: ArrayBuffer; grow(pages: number): number };
type Wasm = {
  Module: new (b: Uint8Array) => object;
  Instance: new (m: object) => { exports: Record<string, unknown> };
};
function instantiate(): WasmMemory {
  const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
  const instance = new wasm.Instance(new wasm.Module(moduleBytes));
  wasmFind = instance.exports.find as typeof wasmFind;
  wasmFolds = instance.exports.folds as typeof wasmFolds;
  memory = instance.exports.mem as WasmMemory;
  mem = new Uint8Array(memory.buffer);
  return memory;
}
/** Makes room for a haystack of `bytes` (growing detaches earlier views of the memory). */
function reserve(bytes: number): void {
  const m = memory ?? instantiate();
  if (HAY + bytes + 16 > mem.length) {
    m.grow(Math.ceil((HAY + bytes + 16 - mem.length) / 65536));
    mem = new Uint8Array(m.buffer);
  }
}
/**
 * `size` bytes over the haystack area: a file read there is searched without a copy. Growing the
 * memory (only for a larger decoded UTF-16 file) detaches it: its length is then 0, ask again.
 */
export function haystackBuffer(size: number): Buffer {
  reserve(size);
  return Buffer.from(mem.buffer, HAY, size);
}
/** Which haystack the memory holds now (a haystack whose token is stale copies itself back), and which literal. */
let current = 0;
let loadedLiteral: PreparedLiteral | undefined;
// A load stopped by the watchdog between writing a literal's bytes and naming it loaded would leave
// the old name over the new bytes (and a later search of the old literal, prepared once and kept,
// reading them): after a stop nothing is taken as loaded.
// A stop between growing the memory and taking a new view of it left the old, detached one: the view
// is taken again (else the next search grew the memory once more).
onStopped(() => {
  loadedLiteral = undefined;
  current++;
  if (memory) mem = new Uint8Array(memory.buffer);
});

/** A literal prepared for the search: lowercase bytes, masks, and the two positions compared first. */
export interface PreparedLiteral {
  lower: Uint8Array;
  masks: Uint8Array;
  i1: number;
  i2: number;
  /** The search is exact for the pattern's literal (see folded_literal.ts). */
  whole: boolean;
}

/** A region copied into the module's memory, searched from any offset. No closures: one is made per file. */
export class FoldedHaystack {
  readonly exact: boolean;
  readonly #bytes: Uint8Array;
  readonly #lit: PreparedLiteral;
  #token = -1;
  // The last answer: mayMatch's find(0) is literalHits' first question too.
  #lastFrom = -1;
  #lastAt = -1;
  constructor(bytes: Uint8Array, lit: PreparedLiteral) {
    this.#bytes = bytes;
    this.#lit = lit;
    this.exact = lit.whole;
  }
  /** The first start >= from of the literal (ASCII case folded), or -1. */
  find(from: number): number {
    if (from === this.#lastFrom) return this.#lastAt;
    const lit = this.#lit;
    if (this.#token !== current || loadedLiteral !== lit) this.#load();
    this.#lastFrom = from;
    this.#lastAt = wasmFind(HAY, this.#bytes.length, from, lit.lower.length, lit.i1, lit.i2);
    return this.#lastAt;
  }
  /** Whether the region holds ſ (U+017F) or K (U+212A), which Unicode folds to s and k. */
  holdsFolds(): boolean {
    if (this.#token !== current) this.#load();
    return wasmFolds(HAY, this.#bytes.length) === 1;
  }
  #load(): void {
    reserve(this.#bytes.length);
    if (loadedLiteral !== this.#lit) {
      mem.set(this.#lit.lower, 0);
      mem.set(this.#lit.masks, LIT_CAP);
      loadedLiteral = this.#lit;
    }
    if (this.#token !== current) {
      const b = this.#bytes; // a region read into the haystack area (haystackBuffer) is in place
      if (b.buffer !== mem.buffer || b.byteOffset !== HAY) mem.set(b, HAY);
      this.#token = ++current;
    }
  }
}
