import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { errValue, okValue } from '../../lib/core/result.ts';
import type { TaskOutcome } from '../../lib/core/task_outcome.ts';
import { createReadPool } from '../../lib/lanes/pool.ts';
import { withThisThread } from '../../lib/lanes/this_thread_lane.ts';
import type { ShardResult, ShardTask } from '../../lib/search/shards.ts';
import { runShard } from '../../lib/search/shards.ts';
import { grepShard as shardOf } from '../helpers/shards.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

/** A grep shard of `pattern` over the whole tree at `root`, ignore files read, every answer wanted. */
const grepShard = (root: string, pattern: string, ignoreCase: boolean, stopAt?: number) =>
  shardOf(root, pattern, { ignoreCase, ...(stopAt !== undefined ? { stopAt } : {}) });

const openDescriptors = () => readdirSync('/proc/self/fd').length;
const NO_SLICE = 600_000;

/** What a shard found, without the figures that depend on when it ran. */
const found = (o: TaskOutcome<ShardResult> | string) => {
  assert.ok(typeof o !== 'string' && o.ok, `the shard ran whole: ${JSON.stringify(o)}`);
  const { files, visited } = o.value as unknown as { files: unknown; visited: number };
  return JSON.stringify({ files, visited });
};

// Many directories, each with an ignore file, and lines for a case-folded literal and for a regex.
const root = tempDir();
const tree: Record<string, string> = {};
for (let d = 0; d < 40; d++) {
  tree[`d${d}/.gitignore`] = `skip${d % 7}.txt\n`;
  for (let f = 0; f < 30; f++)
    tree[`d${d}/s${f % 3}/f${f}.txt`] = `line NEEDLE ${d} ${f}\nother\nneedle x${d * f} needle\n`;
  for (let k = 0; k < 7; k++) tree[`d${d}/skip${k}.txt`] = 'needle in an ignored file\n';
}
writeTree(root, tree);

/** Turns enough for this thread to go through a whole shard of `root` (~1,600 entries) an entry a turn. */
const THROUGH_A_SHARD = 4000;

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/** The whole shard, run at once on this thread: what its lanes must answer. */
const whole = (t: ShardTask) => found({ ok: true, value: runShard(t) });

/** This thread as the only lane: a pool of none, which a hand-over would wait on for ever. */
const alone = (sliceMs: number) =>
  withThisThread({ parallelism: 0, run: () => new Promise<never>(() => {}) }, undefined, sliceMs);

/** Runs `work` while counting the turns of the event loop it spans. */
async function countingTurns<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let ticking = true;
  const tick = () => {
    turns++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const value = await work;
  ticking = false;
  return { value, turns };
}

test('shards paused at every slice leave no descriptor open and answer as the whole shard', async () => {
  const folded = grepShard(root, 'needle', true);
  const regex = grepShard(root, 'x\\d+ n[e]+dle', false);
  const other = grepShard(root, 'other', true);
  const want = [folded, regex, other].map(whole);
  const fds = openDescriptors();
  let sliced = 0;
  // Slices from one millisecond up: each shard pauses at whichever file it reached by then.
  for (let slice = 1; slice <= 40; slice += 3) {
    const lane = alone(slice);
    const { value, turns } = await countingTurns(Promise.all([folded, regex, other].map((t) => lane.run(t))));
    assert.deepEqual(value.map(found), want, `after ${slice} ms slices`);
    assert.equal(openDescriptors(), fds, `descriptors left open after ${slice} ms slices`);
    if (turns > 3) sliced++;
  }
  assert.ok(sliced > 0, 'no shard ran in more than one slice: the test proves nothing on this machine');
});

test('a shard stuck in one file is stopped by the watchdog and handed over; what it had open is closed', async () => {
  const dir = tempDir();
  const files: Record<string, string> = {};
  for (let d = 0; d < 5; d++) for (let f = 0; f < 20; f++) files[`d${d}/f${f}.txt`] = 'aaa\nbbb\n';
  files['d3/stuck.txt'] = `${'a'.repeat(40)}!\n`;
  writeTree(dir, files);
  const dirs = ['d0', 'd1', 'd2', 'd3', 'd4'];
  const clean = { ...grepShard(dir, 'aaa', false), dirs } as ShardTask;
  const want = whole(clean);
  const fds = openDescriptors();
  for (let i = 0; i < 3; i++) {
    // The worker holds a first task, so the runaway runs here; what it is handed next it answers
    // cancelled at once, as a worker would at the call's end.
    const given: ShardTask[] = [];
    let free = () => {};
    const runner = {
      parallelism: 1,
      run: <T extends ShardResult>(t: ShardTask) => {
        given.push(t);
        if (given.length > 1)
          return Promise.resolve<TaskOutcome<T>>(errValue({ reason: 'cancelled', message: 'call ended' }));
        return new Promise<TaskOutcome<T>>((settle) => {
          free = () => settle(okValue(runShard(t) as T));
        });
      },
    };
    const lanes = withThisThread(runner, undefined, 20);
    const busy = lanes.run({ ...clean, dirs: [], files: [] } as ShardTask);
    // A head limit: the worker, once free, takes no half of it, only what the watchdog hands over.
    const stuck = lanes.run({ ...grepShard(dir, '^(a+)+$', false), dirs, maxResults: 10_000 } as ShardTask);
    await turns(1); // this thread has taken it
    free();
    await busy;
    const o = await stuck;
    assert.equal(!o.ok && o.error.reason, 'cancelled', JSON.stringify(o));
    assert.equal(openDescriptors(), fds, 'descriptors left open by a stopped shard');
    assert.equal(given.length, 2);
    assert.deepEqual((given[1] as ShardTask).dirs, ['d3', 'd4'], 'the rest of the runaway, from its stuck piece');
    assert.equal(whole(clean), want, 'later answers unchanged');
  }
});

test('a shard past its deadline on this thread answers timeout, not a hand-over', async () => {
  const runaway = tempDir();
  writeFileSync(path.join(runaway, 'a.txt'), `${'a'.repeat(40)}!\n`);
  const o = await alone(100).run(grepShard(runaway, '^(a+)+$', false, Date.now() + 50));
  assert.ok(!o.ok, JSON.stringify(o));
  assert.equal(o.error.reason, 'timeout');
});

// The runaway runs on the worker until the call ends: what is queued behind it must run here.
test('a runaway shard goes to the worker; the shards queued behind it run here, not behind it', async () => {
  const pool = createReadPool({ workers: 1 });
  after(() => pool.close());
  const controller = new AbortController();
  const runaway = tempDir();
  writeFileSync(path.join(runaway, 'a.txt'), `${'a'.repeat(40)}!\n`);
  const lanes = withThisThread({ parallelism: 1, run: (t) => pool.run(t, controller.signal) }, controller.signal);
  assert.equal(lanes.parallelism, 2);
  const order: string[] = [];
  const answer = (name: string, p: Promise<TaskOutcome<ShardResult>>) =>
    p.then((o) => {
      order.push(name);
      if (name === 'runaway') return o;
      assert.ok(o.ok, JSON.stringify(o));
      return o;
    });
  // The first queued shard goes to the worker, the runaway to this thread, the rest to whichever frees.
  const first = answer('first', lanes.run(grepShard(root, 'needle', false)));
  const stuck = answer('runaway', lanes.run(grepShard(runaway, '^(a+)+$', false)));
  const rest = [1, 2, 3].map((i) => answer(`rest${i}`, lanes.run(grepShard(root, `NEEDLE ${i}`, false))));
  await Promise.all([first, ...rest]);
  assert.deepEqual(order.includes('runaway'), false, 'the runaway settled before the others');
  // Handed to the worker, it runs there until the call is cancelled.
  controller.abort();
  const o = await stuck;
  assert.equal(o.ok, false);
  assert.equal(!o.ok && o.error.reason, 'cancelled');
});

test('a cancelled call runs no more shards on this thread: they answer cancelled, as the pool’s do', async () => {
  const pool = createReadPool({ workers: 1 });
  after(() => pool.close());
  const controller = new AbortController();
  const lanes = withThisThread({ parallelism: 1, run: (t) => pool.run(t, controller.signal) }, controller.signal);
  controller.abort();
  const outcomes = await Promise.all([1, 2, 3, 4].map((i) => lanes.run(grepShard(root, `NEEDLE ${i}`, false))));
  for (const o of outcomes) assert.equal(!o.ok && o.error.reason, 'cancelled', JSON.stringify(o));
});

/**
 * A runner standing in for the pool, whose answers come when the test says: the order is the test's.
 * It raises each task's `answered` flag at once, as a worker does as it answers: this thread then
 * runs one entry a turn (it pauses before each file and directory while the flag is up).
 */
function heldRunner(parallelism = 1) {
  const tasks: ShardTask[] = [];
  const release: (() => void)[] = [];
  return {
    tasks,
    release,
    runner: {
      parallelism,
      run: <T extends ShardResult>(t: ShardTask) =>
        new Promise<TaskOutcome<T>>((settle) => {
          tasks.push(t);
          if (t.answered) Atomics.store(t.answered, 0, 1);
          release.push(() => settle({ ok: true, value: runShard(t) as T }));
        }),
    },
  };
}

test('a worker with nothing queued takes the second half of this thread’s shard; the halves join in order', async () => {
  const held = heldRunner();
  const lanes = withThisThread(held.runner, undefined, NO_SLICE);
  const dirs = Array.from({ length: 40 }, (_, d) => `d${d}`);
  const tiny = { ...grepShard(root, 'needle', true), dirs: [], files: [] } as ShardTask;
  const big = { ...grepShard(root, 'needle', true), dirs } as ShardTask;
  const want = whole(big);
  const first = lanes.run(tiny); // the worker's
  const second = lanes.run(big); // this thread's, an entry a turn while the worker's answer waits
  await turns(3);
  assert.equal(held.tasks.length, 1, 'only the first task went to the worker');
  held.release.shift()?.();
  await first;
  await turns(1);
  assert.equal(held.tasks.length, 2, 'the idle worker was given half of the rest');
  const tail = held.tasks[1] as ShardTask;
  assert.ok(tail.dirs.length >= 1 && tail.dirs.length < 40, JSON.stringify(tail.dirs));
  assert.deepEqual(tail.dirs, dirs.slice(40 - tail.dirs.length), 'the last directories, in order');
  // This thread ends its half before the worker answers: the shard waits for both.
  await turns(THROUGH_A_SHARD);
  held.release.shift()?.();
  assert.equal(found(await second), want);
});

test('a shard with a head limit is not split: its results are met in order', async () => {
  const held = heldRunner();
  const lanes = withThisThread(held.runner, undefined, NO_SLICE);
  const tiny = { ...grepShard(root, 'needle', true), dirs: [], files: [] } as ShardTask;
  const dirs = Array.from({ length: 40 }, (_, d) => `d${d}`);
  const limited = { ...grepShard(root, 'needle', true), dirs, maxResults: 500 } as ShardTask;
  const first = lanes.run(tiny);
  const second = lanes.run(limited);
  await turns(3);
  held.release.shift()?.();
  await first;
  const o = await second;
  assert.equal(held.tasks.length, 1, 'nothing of the limited shard went to the worker');
  assert.ok(
    o.ok && 'results' in o.value && o.value.results === 500 && o.value.stopped,
    JSON.stringify(o).slice(0, 300),
  );
});

test('the lanes of concurrent calls share this thread a slice per turn of the event loop, not one each', async () => {
  // Each call's first task is held on its worker (raising the answered flag): this thread then runs
  // one piece a slice, so a shard of P pieces takes P slices here.
  const dirs = Array.from({ length: 40 }, (_, d) => `d${d}`);
  const calls = [heldRunner(), heldRunner(), heldRunner()].map((held) => {
    const lanes = withThisThread(held.runner, undefined, NO_SLICE);
    lanes.run({ ...grepShard(root, 'needle', true), dirs: [], files: [] } as ShardTask);
    return lanes.run({ ...grepShard(root, 'needle', true), dirs } as ShardTask);
  });
  const { value: outcomes, turns: turnsSeen } = await countingTurns(Promise.all(calls));
  for (const o of outcomes) assert.ok(o.ok, JSON.stringify(o).slice(0, 300));
  // One slice a turn: 3 × 40 turns at least (each call taking its own turn every time: 40).
  assert.ok(turnsSeen >= 3 * 40 - 2, `${turnsSeen} turns of the event loop for 120 slices`);
});

test('a stop signal beside the call’s (the pool closing) ends this thread’s part: cancelled, with why', async () => {
  const held = heldRunner();
  const call = new AbortController();
  const closing = new AbortController();
  const lanes = withThisThread(held.runner, [call.signal, closing.signal], NO_SLICE);
  const dirs = Array.from({ length: 40 }, (_, d) => `d${d}`);
  lanes.run({ ...grepShard(root, 'needle', true), dirs: [], files: [] } as ShardTask);
  const here = lanes.run({ ...grepShard(root, 'needle', true), dirs } as ShardTask);
  await turns(3);
  closing.abort(new Error('the read pool was closed'));
  const o = await here;
  assert.ok(!o.ok && o.error.reason === 'cancelled', JSON.stringify(o).slice(0, 300));
  assert.equal(!o.ok && o.error.message, 'the read pool was closed');
  const pool = createReadPool({ workers: 1 });
  assert.equal(pool.closing.aborted, false);
  await pool.close();
  assert.equal(pool.closing.aborted, true, 'a pool’s close fires its closing signal');
});

test('the last queued task goes to a freed worker in halves: this thread takes the second, answers are the whole’s', async () => {
  const held = heldRunner();
  const lanes = withThisThread(held.runner, undefined, NO_SLICE);
  const dirs = Array.from({ length: 40 }, (_, d) => `d${d}`);
  const big = { ...grepShard(root, 'needle', true), dirs } as ShardTask;
  const want = whole(big);
  const tiny = lanes.run({ ...grepShard(root, 'needle', true), dirs: [], files: [] } as ShardTask); // the worker's
  const mine = lanes.run(big); // this thread's, an entry a turn (the worker's flag is up)
  const last = lanes.run(big); // queued
  await turns(3);
  assert.equal(held.tasks.length, 1, 'the worker still has the first task');
  held.release.shift()?.();
  await tiny;
  assert.equal(held.tasks.length, 2);
  assert.deepEqual((held.tasks[1] as ShardTask).dirs, dirs.slice(0, 20), 'the freed worker took the first half');
  assert.equal(found(await mine), want);
  // This thread has worked through the second half by now; the worker's half is still held.
  await turns(THROUGH_A_SHARD);
  held.release.shift()?.();
  assert.equal(found(await last), want);
  // A head-limited task goes whole: its results are met in order.
  const limited = { ...big, maxResults: 500 } as ShardTask;
  const busy = lanes.run({ ...grepShard(root, 'needle', true), dirs: [], files: [] } as ShardTask);
  const second = lanes.run({ ...big, dirs: dirs.slice(0, 3) } as ShardTask);
  const third = lanes.run(limited);
  await turns(3);
  held.release.shift()?.();
  await busy;
  assert.deepEqual((held.tasks[3] as ShardTask).dirs, dirs, 'the limited task went whole');
  await turns(THROUGH_A_SHARD); // this thread is through the second, so the freed worker takes none of it
  held.release.shift()?.();
  assert.ok((await second).ok && (await third).ok);
});

test('one worker’s answer taken does not put down another’s raise: this thread still pauses for it', async () => {
  const held = heldRunner(2);
  const lanes = withThisThread(held.runner, undefined, NO_SLICE);
  const tiny = () => ({ ...grepShard(root, 'needle', true), dirs: [], files: [] }) as ShardTask;
  const first = lanes.run(tiny()); // each worker raises its flag at once, as if answering
  const second = lanes.run(tiny());
  // A head limit it never reaches: no half of it goes to a worker.
  const dirs = Array.from({ length: 40 }, (_, d) => `d${d}`);
  const mine = { ...grepShard(root, 'needle', true), dirs, maxResults: 1_000_000 } as ShardTask;
  const here = lanes.run(mine);
  await turns(3);
  held.release.shift()?.();
  await first;
  // The second worker's flag is still up: this thread pauses before each entry, a turn each. With
  // the first answer putting it down too, it ran the rest in one slice.
  const { value, turns: spent } = await countingTurns(here);
  assert.ok(spent > 100, `this thread ran the rest in ${spent} turns`);
  assert.equal(found(value), whole(mine));
  held.release.shift()?.();
  assert.ok((await second).ok);
});
