/**
 * A warm runtime whose tree changed shape (a file made) has no walk to serve from until a search
 * walks the whole tree again. A head-limited grep that found its results early stopped its walk,
 * could not be learned, and that started a rebuild of the whole index — after every file an agent
 * made, at most once per ten build times. Now such a search walks on past its results, reading
 * nothing more, and the next is served without a walk; its answer is still a scan's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SearchIndex } from '../../../lib/search/index/service.ts';
import { runtimeAt } from '../../helpers/runtime.ts';
import { agedTree, HAY } from './attack_helpers.ts';

const WALKLESS = 'served without a walk';

test('stopped walk: after a file is made, a head-limited grep learns the tree and starts no rebuild', async () => {
  const files: Record<string, string> = { ...HAY };
  for (let i = 0; i < 12; i++) files[`notes/n${i}.txt`] = `needle ${i}\n`;
  const root = await agedTree(files);
  const rt = runtimeAt(root, { workers: 2, index: 'build', allowWrite: ['notes'] });
  const plain = runtimeAt(root, { workers: 2, index: 'off' });
  const index = rt.searchIndex as SearchIndex;
  assert.ok((await index.build()).ok, 'built');
  const whole = { pattern: 'needle', output_mode: 'files_with_matches', head_limit: 0 };
  assert.equal((await rt.call('grep', whole)).meta?.index, 'served', 'a whole walk, learned');
  assert.equal((await rt.call('grep', whole)).meta?.index, WALKLESS);
  const loaded = index.loaded;
  // A new file through the write lane: the tree's shape changed, so the walk learned is void.
  const made = await rt.call('write_file', { file_path: 'notes/new.txt', content: 'needle new\n' });
  assert.equal(made.isError, false, made.content);
  for (const mode of ['files_with_matches', 'count', 'content']) {
    const input = { pattern: 'needle', output_mode: mode, head_limit: 2 };
    const r = await rt.call('grep', input);
    assert.equal(r.content, (await plain.call('grep', input)).content, mode);
  }
  await index.settled();
  assert.equal(index.loaded, loaded, 'no rebuild');
  const after = await rt.call('grep', whole);
  assert.equal(after.meta?.index, WALKLESS, 'the head-limited walk was learned');
  assert.equal(after.content, (await plain.call('grep', whole)).content);
  assert.match(after.content, /notes\/new\.txt/);
});

test('stopped walk: a walk that ran out of time learning is not tried again till the tree changes shape', async () => {
  const files: Record<string, string> = { ...HAY };
  for (let i = 0; i < 12; i++) files[`notes/n${i}.txt`] = `needle ${i}\n`;
  const root = await agedTree(files);
  const rt = runtimeAt(root, { workers: 2, index: 'build', allowWrite: ['notes'] });
  const index = rt.searchIndex as SearchIndex;
  assert.ok((await index.build()).ok, 'built');
  const q = {
    dir: root,
    pattern: 'needle',
    ignoreCase: false,
    fixedStrings: false,
    walk: { useIgnore: true, hidden: false },
  };
  const first = await index.prefilter(q);
  assert.equal(first.walkOn, true, 'no walk learned yet: walk on past the results');
  // What a walk that ran out of time before the end of the tree answers: a shard that stopped.
  const stopped = { files: [], binary: 0, unreadable: [], skipped: {}, results: 1, visited: 3, stopped: true };
  first.learn?.([{ ...stopped, unindexed: [] }], {});
  assert.equal((await index.prefilter(q)).walkOn, true, 'one that stopped at its results (inline) did not try');
  first.learn?.([{ ...stopped, unindexed: [], outOfTime: true }], {});
  assert.equal((await index.prefilter(q)).walkOn, false, 'not again at this shape');
  // A new file changes the tree's shape: worth another try.
  assert.equal((await rt.call('write_file', { file_path: 'notes/more.txt', content: 'x\n' })).isError, false);
  assert.equal((await index.prefilter(q)).walkOn, true);
});
