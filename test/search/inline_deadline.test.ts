/**
 * A search that runs inline (on the main thread: no pool, or a tree small enough) keeps the call's
 * deadline: nothing can interrupt a synchronous walk, so the shard checks the deadline between files.
 * A deadline of 0 ms has always passed at the first file, so these assert the event, not a duration.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const root = tempDir('mewcode-inline-deadline-');
for (let i = 0; i < 200; i++) writeTree(root, { [`d${i % 10}/f${i}.ts`]: `// TODO ${i}\n` });

test('inline deadline: grep and glob without a pool stop at the deadline, as in a worker', async () => {
  const rt = runtimeAt(root, { workers: 0, readTimeoutMs: 0 });
  const g = await rt.call('grep', { pattern: 'TODO', output_mode: 'count', head_limit: 0 });
  assert.equal(g.isError, true, g.content);
  assert.equal(g.code, 'timeout');
  assert.match(g.content, /deadline/);
  const gl = await rt.call('glob', { pattern: '**/*.ts' });
  assert.equal(gl.isError, true, gl.content);
  assert.equal(gl.code, 'timeout');
  const one = await rt.call('grep', { pattern: 'TODO', path: 'd0/f0.ts' });
  assert.equal(one.code, 'timeout', one.content);
});

test('inline deadline: a small tree searched inline beside a warm pool stops at it too', async () => {
  // With a pool, a tree known to be small is searched inline; the first call learns its size.
  const warm = runtimeAt(root, { workers: 2 });
  assert.equal((await warm.call('grep', { pattern: 'TODO', output_mode: 'count', head_limit: 0 })).isError, false);
  const r = await warm.call('grep', { pattern: 'TODO', output_mode: 'count', head_limit: 0 });
  assert.equal(r.meta?.inline, true, 'the second search of a small tree runs inline');
  const late = runtimeAt(root, { workers: 2, readTimeoutMs: 0 });
  await late.call('grep', { pattern: 'TODO', output_mode: 'count', head_limit: 0 }); // learns the size
  const again = await late.call('grep', { pattern: 'TODO', output_mode: 'count', head_limit: 0 });
  assert.equal(again.code, 'timeout', again.content);
});

test('inline deadline: with time to spare the same searches complete', async () => {
  const rt = runtimeAt(root, { workers: 0 });
  const g = await rt.call('grep', { pattern: 'TODO', output_mode: 'count', head_limit: 0 });
  assert.equal(g.content.split('\n').length, 200);
  const gl = await rt.call('glob', { pattern: '**/*.ts' });
  assert.equal(gl.isError, false, gl.content);
  assert.match(gl.content, /^d0\/f0\.ts\n/);
});
