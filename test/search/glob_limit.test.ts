import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCliSync } from '../helpers/cli.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

// glob's limit 0 means all paths, as grep's head_limit 0 means all lines: no fixed maximum can make a
// listing of a large tree complete.
const root = tempDir();
writeTree(root, Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`d${i % 3}/f${i}.txt`, 'x'])));
const rt = runtimeAt(root, { workers: 1 });

test('glob: limit 0 lists every path, without a truncation note', async () => {
  const r = await rt.call('glob', { pattern: '**/*.txt', limit: 0 });
  assert.equal(r.isError, false, r.content);
  assert.equal(r.content.split('\n').length, 150);
  assert.doesNotMatch(r.content, /truncated/);
  const cut = await rt.call('glob', { pattern: '**/*.txt' });
  assert.match(cut.content, /showing 100 of 150 paths/);
});

test('glob: the CLI takes --limit 0 for all paths', () => {
  const r = runCliSync(['glob', '**/*.txt', '--limit', '0'], { cwd: root });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out.trim().split('\n').length, 150);
});
