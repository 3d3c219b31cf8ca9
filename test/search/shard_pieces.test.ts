import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { createReadPool } from '../../lib/lanes/pool.ts';
import { withThisThread } from '../../lib/lanes/this_thread_lane.ts';
import { joinResults, piecesOf } from '../../lib/search/shard_pieces.ts';
import {
  type GrepMode,
  runShard,
  type ShardResult,
  type ShardSession,
  type ShardTask,
} from '../../lib/search/shards.ts';
import { grepShard } from '../helpers/shards.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const root = tempDir();
const tree: Record<string, string> = {};
for (let d = 0; d < 12; d++) {
  tree[`d${d}/.gitignore`] = 'skip.txt\n';
  tree[`d${d}/skip.txt`] = 'needle ignored\n';
  for (let f = 0; f < 9; f++)
    tree[`d${d}/s${f % 2}/f${f}.txt`] = f % 3 === 0 ? 'none\n' : `needle ${d}\nneedle again\n`;
}
tree['d4/bin.dat'] = 'needle\0binary\n';
// Files that sort between a directory's subdirectories, a hidden one, and a nested ignore file.
for (const d of [2, 7]) {
  tree[`d${d}/a.txt`] = 'needle first\n';
  tree[`d${d}/t.txt`] = 'needle last\n';
  tree[`d${d}/.hid.txt`] = 'needle hidden\n';
  tree[`d${d}/s1/.gitignore`] = 'f5.txt\n';
}
writeTree(root, tree);
const dirs = Array.from({ length: 12 }, (_, d) => `d${d}`);
const walk = { root, useIgnore: true, hidden: false, maxDepth: Number.POSITIVE_INFINITY, ignoreBase: root };
const grep = (mode: string, maxResults = Number.POSITIVE_INFINITY): ShardTask =>
  grepShard(root, 'needle', { mode: mode as GrepMode, maxResults, dirs });
const glob = (maxResults = Number.POSITIVE_INFINITY): ShardTask =>
  ({
    kind: 'glob',
    pattern: '**/*.txt',
    dot: false,
    withMtime: false,
    maxResults,
    root,
    walk,
    dirs,
    files: [],
  }) as ShardTask;

/** A result with its listing's names as text, for comparing bytes with strings. */
const plain = (r: ShardResult) => {
  const listed =
    'listed' in r && r.listed ? { ...r.listed, names: Buffer.from(r.listed.names).toString('utf8') } : undefined;
  return JSON.parse(JSON.stringify({ ...r, ...(listed ? { listed } : {}) }));
};

test('a shard’s pieces, run one after another and joined, give the whole shard’s result', () => {
  for (const task of [grep('content'), grep('count'), grep('files_with_matches'), glob()]) {
    const pieces = piecesOf(task, 1);
    assert.equal(pieces.length, dirs.length);
    const want = plain(runShard(task));
    assert.deepEqual(plain(joinResults(pieces.map((p) => runShard(p)))), want, JSON.stringify(task.kind));
    // As this thread's lane runs them: the pieces share one session (ignore rules, matchers).
    const session = {};
    assert.deepEqual(plain(joinResults(pieces.map((p) => runShard(p, session)))), want, `${task.kind}, one session`);
  }
});

test('this thread, a piece or more a turn, answers as the whole shard, head limits and hand-overs included', async () => {
  const pool = createReadPool({ workers: 1 });
  after(() => pool.close());
  const signal = new AbortController().signal;
  // A 1 ms slice: the loop turns between pieces, and a piece that outruns it hands the rest to the worker.
  const lanes = withThisThread({ parallelism: 1, run: (t) => pool.run(t, signal) }, signal, 1);
  for (const task of [grep('content', 7), grep('files_with_matches', 5), grep('count'), glob(10)]) {
    const want = plain(runShard(task));
    // Two at once: the worker takes the first, this thread the second.
    for (const o of await Promise.all([lanes.run(task), lanes.run(task)])) {
      assert.ok(o.ok, JSON.stringify(o));
      const got = plain(o.value);
      for (const k of ['files', 'paths', 'results', 'stopped', 'listed'])
        assert.deepEqual(got[k], want[k], `${task.kind} ${(task as { mode?: string }).mode ?? ''} ${k}`);
    }
  }
});

/** A worker's answered flag, raised: a shard told to pause on it pauses before each file and directory. */
const raised = new Int32Array(new SharedArrayBuffer(4)).fill(1);

/**
 * `p` run as this thread's lane runs it when every slice is over at once: paused before each entry
 * (`flag`: a worker has answered), or at the clock's next reading (`clock`: the slice is over).
 */
function runPausing(p: ShardTask, session: ShardSession, by: 'flag' | 'clock' = 'flag'): ShardResult[] {
  const parts: ShardResult[] = [];
  let from: string | undefined;
  session.skipsSeen = new Set();
  const pause = by === 'flag' ? { yieldAt: Number.POSITIVE_INFINITY, yieldOn: raised } : { yieldAt: 0 };
  for (;;) {
    const r = runShard({ ...p, ...pause, ...(from === undefined ? {} : { walk: { ...p.walk, from } }) }, session);
    parts.push(r);
    if (r.pausedAt === undefined) return parts;
    assert.ok(from === undefined || r.pausedAt > from, `no progress past ${from}`);
    from = r.pausedAt;
  }
}

test('a piece paused before every file and resumed there, joined, gives the whole shard’s result', () => {
  const loose = ['d1/s0/f2.txt', 'd2/a.txt', 'd2/s1/f1.txt', 'd7/t.txt'].map((rel) => ({ rel, kind: 'file' as const }));
  const withLoose = (t: ShardTask) => ({ ...t, files: loose }) as ShardTask;
  for (const task of [grep('content'), grep('count'), grep('files_with_matches'), glob(), withLoose(grep('content'))]) {
    const pieces = piecesOf(task, 2);
    const session = {};
    const parts = pieces.map((p) => runPausing(p, session));
    assert.ok(parts.flat().length > pieces.length * 3, 'the pieces paused');
    const joined = joinResults(parts.map((ps) => joinResults(ps)));
    assert.deepEqual(plain(joined), plain(runShard(task)), `${task.kind} ${(task as { mode?: string }).mode ?? ''}`);
  }
});

test('paused and resumed: a piece of the whole root, a long stretch of empty directories, names that decode alike', () => {
  const dir = tempDir();
  const files: Record<string, string> = { 'a.txt': 'needle a\n', 'z.txt': 'needle z\n' };
  // Sixty directories with no file: a piece pauses before directories too, not only before files.
  for (let d = 0; d < 60; d++) files[`m/e${String(d).padStart(2, '0')}/.keep/x`] = '';
  files['m/zz.txt'] = 'needle zz\n';
  writeTree(dir, files);
  // Two names that are not UTF-8 and read as the same path (U+FFFD): walked once each, as whole.
  for (const byte of [0xfe, 0xff])
    writeFileSync(Buffer.concat([Buffer.from(`${dir}/m/`), Buffer.from([byte]), Buffer.from('.txt')]), 'needle odd\n');
  const w = { root: dir, useIgnore: true, hidden: false, maxDepth: Number.POSITIVE_INFINITY, ignoreBase: dir };
  const at = (t: ShardTask) => ({ ...t, root: dir, walk: w, dirs: [''] }) as ShardTask;
  for (const task of [at(grep('content')), at(grep('count')), at(glob())]) {
    const parts = runPausing(task, {});
    assert.ok(parts.length > 60, `it paused before the empty directories too (${parts.length} runs)`);
    assert.deepEqual(plain(joinResults(parts)), plain(runShard(task)), `${task.kind} from the root`);
    // Paused by the clock: a grep reads it before each entry, a glob every 16 (fewer runs); the same answer.
    const clocked = runPausing(task, {}, 'clock');
    if (task.kind === 'grep') assert.equal(clocked.length, parts.length, 'a grep paused by the clock at each entry');
    else
      assert.ok(clocked.length > 3 && clocked.length < parts.length, `a glob paused by the clock: ${clocked.length}`);
    assert.deepEqual(plain(joinResults(clocked)), plain(runShard(task)), `${task.kind}, paused by the clock`);
  }
});
