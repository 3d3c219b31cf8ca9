/**
 * Reading a stretch of a file through a descriptor already open: one `readSync` may return fewer bytes
 * than asked, so the read goes on until the stretch is full or the file ends. Callers that read a
 * whole file pass the size they stat'ed; a file that shrank since comes back shorter, and one that
 * grew is read only up to that size. Any thread.
 */
import { readSync } from 'node:fs';

/** Up to `length` bytes of `fd` from byte `from`: fewer where the file ends sooner. */
export function readFdRange(fd: number, from: number, length: number): Buffer {
  // Zeroed, not allocUnsafe: after a short read the returned view's backing memory holds no stale bytes.
  const b = Buffer.alloc(Math.max(0, length));
  let got = 0;
  while (got < b.length) {
    const n = readSync(fd, b, got, b.length - got, from + got);
    if (n === 0) break;
    got += n;
  }
  return b.subarray(0, got);
}
