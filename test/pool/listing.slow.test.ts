/**
 * files_with_matches and count answers cross from the shards as one string of paths and an array of
 * counts each (lib/search/listing.ts merges them): the merged answer is the one a single inline
 * search gives — same paths, same order, same counts — for a tree split over many shards.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

test('listing: whole-tree files_with_matches and count from the pool equal the inline answer', {
  timeout: 120_000,
}, async () => {
  const root = tempDir();
  const files: Record<string, string> = {};
  // Names that sort differently by component than by plain string order ("a/b" before "a-b", "a.b").
  for (let d = 0; d < 40; d++)
    for (let f = 0; f < 30; f++) files[`d${d}/${f % 3 === 0 ? 'x-' : 'x/'}${f}.txt`] = 'hit\n'.repeat((f % 4) + 1);
  for (let f = 0; f < 600; f++) files[`loose${f}.txt`] = f % 2 ? 'hit\nmiss\n' : 'miss\n';
  files['a/b.txt'] = 'hit\n';
  files['a-b.txt'] = 'hit\n';
  files['a.b.txt'] = 'hit\n';
  files['line\nbreak.txt'] = 'hit\n'; // a newline in a name: the listing's separator is NUL
  writeTree(root, files);
  const pooled = runtimeAt(root, { workers: 2, index: 'off' });
  const inline = runtimeAt(root, { workers: 0, index: 'off' });
  for (const output_mode of ['files_with_matches', 'count'] as const) {
    // A pattern with a quantifier never runs inline: the pooled runtime really fans out to its workers.
    const input = { pattern: 'hi+t', output_mode, head_limit: 0 };
    // Twice: the second call goes to the pool without planning (the tree is remembered as large).
    for (let round = 0; round < 2; round++) {
      const p = await pooled.call('grep', input);
      const i = await inline.call('grep', input);
      assert.equal(p.meta?.inline, false);
      assert.equal(p.content, i.content);
      assert.equal(p.meta?.files, 40 * 30 + 300 + 4);
    }
  }
  const limited = await pooled.call('grep', { pattern: 'hi+t', output_mode: 'count', head_limit: 5 });
  assert.equal(
    limited.content.split('\n').slice(0, 5).join('\n'),
    (await inline.call('grep', { pattern: 'hi+t', output_mode: 'count' })).content.split('\n').slice(0, 5).join('\n'),
  );
});
