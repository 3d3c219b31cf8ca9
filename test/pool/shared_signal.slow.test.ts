/**
 * One call's abort signal is shared by all its shards: with more workers there are more shards than
 * Node's default of 10 listeners per signal, and every whole-tree grep printed a
 * MaxListenersExceededWarning on stderr (a "possible memory leak") on a machine with 4+ workers.
 * Each task's listener goes when the task settles, so many at once is expected, not a leak.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

test('pool: a grep fanned out to many shards on 4 workers prints no listener warning', {
  timeout: 120_000,
}, async () => {
  const root = tempDir();
  const files: Record<string, string> = {};
  for (let d = 0; d < 40; d++) for (let f = 0; f < 3; f++) files[`d${d}/f${f}.txt`] = `needle ${d} ${f}\n`;
  writeTree(root, files);
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  try {
    const rt = runtimeAt(root, { workers: 4, index: 'off' });
    for (const input of [
      { pattern: 'needle', output_mode: 'count', head_limit: 0 },
      { pattern: 'needle', output_mode: 'files_with_matches', head_limit: 0 },
    ]) {
      const r = await rt.call('grep', input);
      assert.equal(r.isError, false, r.content);
      assert.equal(r.content.split('\n').filter((l) => /^d\d+\/f\d\.txt/.test(l)).length, 120, r.content);
    }
    const globbed = await rt.call('glob', { pattern: '**/*.txt' });
    assert.equal(globbed.content.split('\n').filter((l) => /^d\d+\/f\d\.txt$/.test(l)).length, 100, globbed.content); // its default limit
    // A warning is emitted on a later tick than the listener that caused it: let those run.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings, []);
  } finally {
    process.off('warning', onWarning);
  }
});
