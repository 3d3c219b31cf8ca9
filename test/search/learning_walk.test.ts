/**
 * A grep shard whose walk the index learns (`learnUntil`) goes on past its results, reading nothing
 * more, so the walk is whole; past `learnUntil` it stops as any walk stops at its results. Its
 * results are those of a shard that stops, either way. Both times are given, not raced: one long
 * gone, one never reached.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { type GrepShard, inlineLearning, runGrepShard } from '../../lib/search/shards.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { NEEDLE_GREP } from '../security/racer.ts';

const root = tempDir('mewcode-learning-walk-');
writeTree(root, {
  ...Object.fromEntries(
    Array.from({ length: 30 }, (_, i) => [`d${i % 3}/f${String(i).padStart(2, '0')}.txt`, 'needle\n']),
  ),
  '.gitignore': 'ignored/\n',
  'ignored/x.txt': 'needle\n',
});

const shard = (o: Partial<GrepShard>): GrepShard => ({
  ...NEEDLE_GREP,
  mode: 'files_with_matches',
  maxResults: 2,
  root,
  walk: { root, useIgnore: true, hidden: false, maxDepth: Number.POSITIVE_INFINITY, ignoreBase: root },
  dirs: [''],
  files: [],
  ...o,
});

test('learning walk: past its results it walks the whole tree, reads nothing more, and is not stopped', () => {
  const stopping = runGrepShard(shard({}));
  const learning = runGrepShard(shard({ learnUntil: Number.POSITIVE_INFINITY }));
  assert.equal(stopping.stopped, true);
  assert.equal(learning.stopped, false);
  assert.equal(learning.results, 2);
  assert.deepEqual(learning.listed, stopping.listed, 'the same two files');
  assert.equal(learning.searched, stopping.searched, 'nothing more read');
  assert.ok(stopping.visited < 30, `the stopping walk ended early (${stopping.visited})`);
  assert.ok(learning.visited >= 30, `every file met (${learning.visited})`);
  assert.deepEqual(
    learning.skipped,
    { '.gitignore': { dirs: 1, files: 0 }, hidden: { dirs: 0, files: 1 } },
    'and every skip counted',
  );
});

test('learning walk: past learnUntil it stops at its results, as a walk not learned', () => {
  const r = runGrepShard(shard({ learnUntil: 0 }));
  assert.equal(r.stopped, true);
  assert.equal(r.results, 2);
  assert.deepEqual(r.listed, runGrepShard(shard({})).listed);
});

test('learning walk: content and count modes hold only their limit', () => {
  for (const mode of ['content', 'count'] as const) {
    const learning = runGrepShard(shard({ mode, learnUntil: Number.POSITIVE_INFINITY }));
    const stopping = runGrepShard(shard({ mode }));
    assert.equal(learning.results, 2, mode);
    assert.deepEqual(learning.files, stopping.files, mode);
    assert.deepEqual(learning.listed, stopping.listed, mode);
  }
});

test('learning walk: past learnUntil it stops in a stretch without files too (empty or ignored directories)', () => {
  const at = (files: Record<string, string>, dirs: string[], o: Partial<GrepShard>) => {
    const dir = tempDir('mewcode-learning-bare-');
    writeTree(dir, { 'a/f1.txt': 'needle\n', 'a/f2.txt': 'needle\n', ...files });
    for (const d of dirs) mkdirSync(path.join(dir, d), { recursive: true });
    return runGrepShard(shard({ root: dir, walk: { ...shard({}).walk, root: dir, ignoreBase: dir }, ...o }));
  };
  const empty = Array.from({ length: 50 }, (_, i) => `b/d${i}/e`);
  // Only empty directories follow the second match: the walk stops at the first one it enters.
  assert.equal(at({}, empty, { learnUntil: 0 }).stopped, true);
  assert.equal(at({}, empty, { learnUntil: Number.POSITIVE_INFINITY }).stopped, false);
  // Only an ignored directory follows: the walk stops before counting it.
  const ignored = { '.gitignore': 'c/\n', 'z/c/x.txt': 'needle\n' };
  const short = at(ignored, [], { learnUntil: 0 });
  assert.equal(short.stopped, true);
  assert.equal(short.skipped['.gitignore'], undefined);
  const whole = at(ignored, [], { learnUntil: Number.POSITIVE_INFINITY });
  assert.equal(whole.stopped, false);
  assert.deepEqual(whole.skipped['.gitignore'], { dirs: 1, files: 0 });
});

test('learning walk: inline, only a tree known to be small learns, and for 50 ms at most', () => {
  const learning = shard({ learnUntil: Number.POSITIVE_INFINITY });
  const before = Date.now();
  const small = inlineLearning(learning, true) as GrepShard;
  assert.ok(small.learnUntil !== undefined && small.learnUntil >= before && small.learnUntil <= Date.now() + 50);
  assert.equal('learnUntil' in inlineLearning(learning, false), false, 'a tree not known small stops at its results');
  const plain = shard({});
  assert.equal(inlineLearning(plain, true), plain);
});

test('learning walk: a walk stopped at a directory (deadline or learnUntil) closes its descriptors', () => {
  const dir = tempDir('mewcode-learning-fds-');
  writeTree(dir, { 'a/f1.txt': 'needle\n', 'a/f2.txt': 'needle\n' });
  for (let i = 0; i < 40; i++) mkdirSync(path.join(dir, `b${i}/c/d`), { recursive: true });
  const at = (o: Partial<GrepShard>) =>
    shard({ root: dir, walk: { ...shard({}).walk, root: dir, ignoreBase: dir }, ...o });
  const fds = () => readdirSync('/proc/self/fd').length;
  const before = fds();
  for (let i = 0; i < 100; i++) {
    assert.throws(() => runGrepShard(at({ maxResults: Number.POSITIVE_INFINITY, stopAt: 0 })), /deadline/);
    const r = runGrepShard(at({ learnUntil: 0 }));
    assert.equal(r.outOfTime, true);
  }
  // The loop is synchronous, but the thread pool may finish another test's opens or closes meanwhile
  // (CI once saw one fewer): a leak leaves one per stopped walk, 200 here.
  const grown = fds() - before;
  assert.ok(grown < 20, `one descriptor left per stopped walk before: ${grown} more now`);
  assert.equal(runGrepShard(at({})).outOfTime, undefined, 'a walk stopped at its results was not out of time');
});
