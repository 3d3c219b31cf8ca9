/**
 * More changes than the kernel queues events for (fs.inotify.max_queued_events, 16384 by default):
 * while the main thread is busy, a burst (an install, a checkout) fills the one inotify queue every
 * watch of the process shares, and the kernel drops the rest — libuv drops the overflow notice too,
 * so no watch reports anything. A warm runtime must then not vouch for a file it heard nothing of.
 * The burst is made synchronously here, so the event loop reads nothing until it is over.
 */
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { RACY_MS } from '../../../lib/search/dircache.ts';
import type { SearchIndex } from '../../../lib/search/index/service.ts';
import { waitFor } from '../../helpers/wait.ts';
import { agedTree, diverging, prime, rgFiles, trio } from './attack_helpers.ts';

/** What the kernel queues before it drops events. */
const LIMIT = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));

/** More than LIMIT events in the watched directory `dir` (a create and a write per file). */
function burst(root: string, dir: string): void {
  mkdirSync(path.join(root, dir), { recursive: true });
  for (let i = 0; i < LIMIT / 2 + 1000; i++) writeFileSync(path.join(root, dir, `g${i}.txt`), 'x\n');
}

test('overflow: a file changed once the event queue overflowed is still found', async () => {
  const root = await agedTree({ 'a.txt': 'needle here\n', 'src/x.txt': 'plain\n' });
  const t = await trio(root);
  await prime(t, 'needle');
  burst(root, 'hay');
  writeFileSync(path.join(root, 'src/x.txt'), 'needle now\n');
  assert.deepEqual(rgFiles(root, ['needle']), ['a.txt', 'src/x.txt']);
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, []);
  // And after a rebuild (the burst's files aged), as the watches tell it.
  const written = Date.now();
  await waitFor(() => Date.now() - written > RACY_MS + 100, 'the racy window to pass', { everyMs: 100 });
  assert.ok((await (t.warm.searchIndex as SearchIndex).build()).ok, 'rebuilt');
  writeFileSync(path.join(root, 'src/x.txt'), 'needle again\n');
  assert.deepEqual((await diverging(t, { pattern: 'needle' })).diffs, []);
});

test('overflow: a directory replaced (held open) while the queue overflowed is watched anew by a rebuild', async (t) => {
  const root = await agedTree({ 'a.txt': 'needle here\n', 'p/q/x.txt': 'plain\n' });
  const three = await trio(root);
  const index = three.warm.searchIndex as SearchIndex;
  const fd = openSync(path.join(root, 'p/q'), 'r');
  t.after(() => closeSync(fd));
  burst(root, 'hay');
  // No event of this reaches a watch: the queue is full.
  rmSync(path.join(root, 'p/q'), { recursive: true });
  mkdirSync(path.join(root, 'p/q'));
  writeFileSync(path.join(root, 'p/q/x.txt'), 'plain\n');
  const written = Date.now();
  await waitFor(() => Date.now() - written > RACY_MS + 100, 'the racy window to pass', { everyMs: 100 });
  assert.ok((await index.build()).ok, 'rebuilt');
  assert.ok((index.loaded?.rels.idOf('p/q/x.txt') ?? -1) >= 0, 'the new file is indexed');
  writeFileSync(path.join(root, 'p/q/x.txt'), 'needle now\n');
  assert.deepEqual(rgFiles(root, ['needle']), ['a.txt', 'p/q/x.txt']);
  assert.deepEqual((await diverging(three, { pattern: 'needle' })).diffs, []);
});
