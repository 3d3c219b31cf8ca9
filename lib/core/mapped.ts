/**
 * Large scratch memory that goes back to the system when it is collected: an ArrayBuffer of a
 * WebAssembly memory, which V8 maps and unmaps itself, instead of one from the C allocator. glibc
 * serves a thread's allocations from that thread's arena; once one large block is freed it raises
 * the size above which it maps blocks of their own, so the next large buffers come from the arenas
 * too, and an arena keeps the memory its thread freed (also after the thread ended). Measured on a
 * 104k-file tree: after an index build the process held ~110 MB of freed memory in its arenas.
 * For buffers a thread makes and drops again and again (a build's pairs and sort scratch), never
 * for one handed to another thread (a WebAssembly memory's buffer cannot be transferred).
 */

const PAGE = 65536;

// The project's type libraries (no DOM) do not declare WebAssembly; this is the part used here.
interface WasmMemory {
  Memory: new (d: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmMemory }).WebAssembly;

/** An ArrayBuffer of at least `bytes` zeroed bytes, mapped of its own when the system allows it. */
export function mappedBuffer(bytes: number): ArrayBuffer {
  const pages = Math.max(1, Math.ceil(bytes / PAGE));
  try {
    return new wasm.Memory({ initial: pages, maximum: pages }).buffer;
  } catch {
    // Refused (an address-space limit: each memory reserves room to grow in): the C allocator's.
    return new ArrayBuffer(bytes);
  }
}

export const mappedU32 = (n: number): Uint32Array<ArrayBuffer> => new Uint32Array(mappedBuffer(4 * n), 0, n);
export const mappedU8 = (n: number): Uint8Array<ArrayBuffer> => new Uint8Array(mappedBuffer(n), 0, n);
