/**
 * Which lanes a runtime's searches run on: with an index in use, the pool's workers but one and this
 * thread (a worker fewer while serving); without one, every worker (each search walks, and the
 * workers alone walk faster). Workers are seen through node's 'worker' event and their 'exit' events,
 * never by waiting for a clock; answers are compared with a runtime without a pool.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { RACY_MS } from '../../lib/search/dircache.ts';
import type { SearchIndex } from '../../lib/search/index/service.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { waitFor } from '../helpers/wait.ts';

const SAFETY = { timeout: 180_000 };

// 2,400 files, more than a pool searches inline, in 24 directories; every file matches.
const root = tempDir('mewcode-search-lanes-');
const tree: Record<string, string> = {};
for (const top of ['a', 'b', 'c', 'd', 'e', 'f'])
  for (const sub of ['p', 'q', 'r', 's'])
    for (let i = 0; i < 100; i++) tree[`${top}/${sub}/f${String(i).padStart(3, '0')}.txt`] = `needle ${i}\nhay\n`;
writeTree(root, tree);
const written = Date.now();
const inline = runtimeAt(root, { workers: 0, index: 'off' });
after(() => inline.close());

/** The worker threads started while watching, each with a promise of its exit. */
function watchWorkers() {
  const seen: { worker: Worker; exited: Promise<number> }[] = [];
  const onWorker = (worker: Worker) => seen.push({ worker, exited: new Promise((r) => worker.once('exit', r)) });
  process.on('worker', onWorker);
  return { seen, stop: () => process.off('worker', onWorker) };
}

const WHOLE = { pattern: 'needle', output_mode: 'count', head_limit: 0 } as const;

test('search lanes: without an index, a whole-tree search runs on both workers', SAFETY, async () => {
  const watch = watchWorkers();
  const rt = runtimeAt(root, { workers: 2, index: 'off' });
  try {
    const got = await rt.call('grep', WHOLE);
    assert.equal(got.meta?.inline, false, 'the pool searched it');
    assert.equal(got.content, (await inline.call('grep', WHOLE)).content);
    assert.equal(watch.seen.length, 2, 'both workers started');
  } finally {
    watch.stop();
    await rt.close();
  }
});

test('search lanes: with an index in use, a search walks on one worker and this thread', SAFETY, async () => {
  // An index trusts a file's state only once it is older than the racy window.
  await waitFor(() => Date.now() - written > RACY_MS + 100, 'the tree to leave the racy window', { everyMs: 100 });
  const watch = watchWorkers();
  const rt = runtimeAt(root, { workers: 2, index: 'build', indexCacheDir: tempDir('mewcode-search-lanes-cache-') });
  try {
    assert.ok((await (rt.searchIndex as SearchIndex).build()).ok, 'built');
    // The build ran on every worker; its recycle ends them once their tasks are done.
    const building = watch.seen.slice();
    await Promise.all(building.map((w) => w.exited));
    for (const input of [WHOLE, { ...WHOLE, output_mode: 'files_with_matches' }, { pattern: 'hay', head_limit: 0 }]) {
      const got = await rt.call('grep', input);
      assert.equal(got.isError, false, got.content);
      assert.equal(got.meta?.inline, false, 'the pool searched it');
      assert.equal(got.content, (await inline.call('grep', input)).content, JSON.stringify(input));
    }
    const glob = await rt.call('glob', { pattern: '**/*.txt', limit: 0 });
    assert.equal(glob.content, (await inline.call('glob', { pattern: '**/*.txt', limit: 0 })).content);
    assert.equal(watch.seen.length - building.length, 1, 'one worker started after the build, beside this thread');
  } finally {
    watch.stop();
    await rt.close();
  }
});
