/**
 * A directory the index knows replaced by a plain file: every lstat of a path below it then fails
 * with ENOTDIR, not ENOENT — in a watch event's handler (where a throw ends the process), in the
 * sweep of an index loaded from disk, and when a rebuild's watches open. Each must take the paths
 * below it as gone, and every search must answer as one without an index. Real trees, real watches.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { SearchIndex } from '../../../lib/search/index/service.ts';
import { watchDirs } from '../../../lib/search/index/watch.ts';
import { runtimeAt } from '../../helpers/runtime.ts';
import { tempDir, writeTree } from '../../helpers/temp.ts';
import { waitFor } from '../../helpers/wait.ts';
import { agedTree, assertSame, prime, rgFiles, trio } from './attack_helpers.ts';

const TREE = { 'a.txt': 'needle here\n', 'd5/x.txt': 'plain words\n', 'd5/sub/y.txt': 'plain\n' };

test('file over a directory: events for paths below it, delivered after the swap, are taken as gone', async () => {
  const three = await trio(await agedTree(TREE));
  const root = three.root;
  await prime(three, 'needle');
  // All before the events are read: by then d5/new.txt's path runs through a file.
  writeFileSync(path.join(root, 'd5/new.txt'), 'needle new\n');
  rmSync(path.join(root, 'd5'), { recursive: true });
  writeFileSync(path.join(root, 'd5'), 'needle in a file where a directory was\n');
  assert.deepEqual(rgFiles(root, ['needle']), ['a.txt', 'd5']);
  for (let i = 0; i < 3; i++) await assertSame(three, { pattern: 'needle' }, `the swap, search ${i + 1}`);
  assert.ok((await (three.warm.searchIndex as SearchIndex).build()).ok, 'rebuilt over the file');
  await assertSame(three, { pattern: 'needle' }, 'the rebuild');
});

test('file over a directory: a warm runtime loading the index from disk searches as without one', async () => {
  const three = await trio(await agedTree(TREE));
  const root = three.root;
  rmSync(path.join(root, 'd5'), { recursive: true });
  writeFileSync(path.join(root, 'd5'), 'needle in a file\n');
  // A new warm runtime reads the index built before the swap, and sweeps every indexed file's state.
  const loaded = runtimeAt(root, { workers: 2, index: 'build', indexCacheDir: three.cache });
  const want = await three.plain.call('grep', { pattern: 'needle' });
  for (let i = 0; i < 3; i++) {
    const got = await loaded.call('grep', { pattern: 'needle' });
    assert.equal(got.isError, false, got.content);
    assert.equal(got.content, want.content, `search ${i + 1} (${String(got.meta?.index)})`);
  }
});

test('file over a directory: watches asked for below it are lost alone', async (t) => {
  const root = tempDir();
  writeTree(root, { 'd/f.txt': 'x', 'e/g.txt': 'y' });
  rmSync(path.join(root, 'd'), { recursive: true });
  writeFileSync(path.join(root, 'd'), 'a file now');
  const seen: [string, boolean, boolean | undefined][] = [];
  const w = watchDirs(root, ['', 'd/sub', 'e'], (rel, named, lost) => void seen.push([rel, named, lost]));
  assert.ok(w, 'watching the rest');
  t.after(() => w.close());
  assert.deepEqual(
    seen.filter(([, , lost]) => lost),
    [['d/sub', false, true]],
  );
  assert.equal(w.replaced('d/sub'), true);
  writeFileSync(path.join(root, 'e/g.txt'), 'changed');
  await waitFor(() => seen.some(([r, named]) => r === 'e/g.txt' && named), 'the watch of e');
});
