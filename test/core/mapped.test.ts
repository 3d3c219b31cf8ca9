/**
 * Scratch memory mapped of its own (lib/core/mapped.ts): zeroed, of the size asked for, and — where
 * the system refuses a WebAssembly memory (an address-space limit: each reserves room to grow in) —
 * the C allocator's instead, in a real process under `ulimit -v`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import { mappedBuffer, mappedU8, mappedU32 } from '../../lib/core/mapped.ts';

test('mapped: zeroed buffers of at least the size asked for; typed views of exactly it', () => {
  for (const n of [0, 1, 65535, 65536, 65537, 3 << 20]) {
    const b = mappedBuffer(n);
    assert.ok(b.byteLength >= n, `${n}`);
    assert.ok(new Uint8Array(b).every((x) => x === 0));
  }
  assert.equal(mappedU32(1000).length, 1000);
  assert.equal(mappedU8(70000).length, 70000);
});

test('mapped: under an address-space limit that refuses WebAssembly memories, the allocator serves', () => {
  // Plain JavaScript in the limited process: tsx itself needs a WebAssembly memory to start.
  const source = readFileSync(fileURLToPath(new URL('../../lib/core/mapped.ts', import.meta.url)), 'utf8');
  const js = transformSync(source, { loader: 'ts', format: 'esm' }).code;
  const script = `
    let refused = false;
    try { new WebAssembly.Memory({ initial: 1, maximum: 1 }); } catch { refused = true; }
    const { mappedU32 } = await import(${JSON.stringify(`data:text/javascript,${encodeURIComponent(js)}`)});
    const a = mappedU32(1 << 20);
    a[a.length - 1] = 7;
    console.log(JSON.stringify({ refused, length: a.length, last: a[a.length - 1] }));`;
  const r = spawnSync(
    'bash',
    ['-c', 'ulimit -v 3000000 && exec "$0" --input-type=module -e "$1"', process.execPath, script],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { refused: true, length: 1 << 20, last: 7 });
});
