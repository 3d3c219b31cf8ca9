/**
 * The few pieces both hand-assembled WebAssembly modules (fold_wasm.ts, index/ngrams_wasm.ts) are
 * written with: the opcodes they share, LEB128 numbers, and the module's sections. Each module keeps
 * its own instructions and memory layout; this only spells bytes.
 */

// Opcodes (WebAssembly 2.0 core) used by both modules.
export const BLOCK = [0x02, 0x40];
export const LOOP = [0x03, 0x40];
export const IF = [0x04, 0x40];
export const ELSE = 0x05;
export const END = 0x0b;
export const BR = 0x0c;
export const BR_IF = 0x0d;
export const RETURN = 0x0f;
export const GET = 0x20;
export const SET = 0x21;
export const TEE = 0x22;
export const EQ = 0x46;
export const LT_U = 0x49;
export const GE_U = 0x4f;
export const ADD = 0x6a;
export const AND = 0x71;
export const OR = 0x72;
export const I32 = 0x7f;
export const LOAD8 = (offset: number) => [0x2d, 0x00, ...uleb(offset)];

/** Unsigned LEB128. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

/** Signed LEB128 (an i32.const's operand). */
export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}

export const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
export const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
export const str = (s: string) => [...uleb(s.length), ...Buffer.from(s)];
/** A function body: its locals (count, type pairs), then its code (ending in END). */
export const body = (locals: number[][], code: number[]) => {
  const b = [...vec(locals), ...code];
  return [...uleb(b.length), ...b];
};
