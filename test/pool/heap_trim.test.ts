/**
 * The idle heap trim (lib/lanes/heap_trim.ts): one collection once no call, pool task or index build
 * has run for the trim's idle time, none while a call runs, one per idle period, a call in the idle
 * wait puts it off, and close() leaves nothing pending; the mark before it, when its window fits,
 * started over by activity between them. The tests wait for the trim's own hooks and read its state;
 * none measures memory or time.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createHeapTrim, type HeapTrim } from '../../lib/lanes/heap_trim.ts';
import type { Runtime } from '../../lib/runtime/runtime.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const SAFETY = { timeout: 120_000 };

/** A small source tree, and a file more per name in `extra`. */
function tree(files = 20): string {
  const root = tempDir();
  const content: Record<string, string> = {};
  for (let i = 0; i < files; i++) content[`src/d${i % 40}/f${i}.ts`] = `export const v${i} = ${i}; // TODO ${i}\n`;
  writeTree(root, content);
  return root;
}

/**
 * Resolves with the main-thread ms of the next trim. The trim's timer is unref'd (it must not keep a
 * process alive), so the wait holds the event loop open itself.
 */
const nextTrim = (rt: Runtime, seen?: () => void) =>
  new Promise<number>((resolve) => {
    const open = setInterval(() => undefined, 1000);
    rt.heapTrim.onTrim = (ms) => {
      seen?.();
      rt.heapTrim.onTrim = undefined;
      clearInterval(open);
      resolve(ms);
    };
  });

/** Resolves at the trimmer's next mark or trim (whichever `hook` names), holding the event loop open. */
const next = (trim: HeapTrim, hook: 'onMark' | 'onTrim') =>
  new Promise<void>((resolve) => {
    const open = setInterval(() => undefined, 1000);
    trim[hook] = () => {
      trim[hook] = undefined;
      clearInterval(open);
      resolve();
    };
  });

test('heap trim: the mark comes first in an idle period, activity after it starts both over', SAFETY, async () => {
  const seen: string[] = [];
  let collections = 0;
  const trim = createHeapTrim({ idleMs: 60, markMs: 10, quietMs: 40, collect: () => collections++ });
  trim.begin();
  trim.end();
  await next(trim, 'onMark');
  seen.push('mark');
  assert.equal(trim.trims, 0);
  assert.equal(trim.armed, true, 'the trim waits after the mark');
  trim.begin();
  assert.equal(trim.armed, false, 'activity after the mark drops the pending trim');
  trim.end();
  await next(trim, 'onMark');
  seen.push('mark');
  await next(trim, 'onTrim');
  seen.push('trim');
  assert.deepEqual(seen, ['mark', 'mark', 'trim']);
  assert.equal(collections, 3);
  assert.deepEqual([trim.marks, trim.trims, trim.armed], [2, 1, false]);

  // Closed between a mark and its trim: nothing stays pending.
  trim.begin();
  trim.end();
  await next(trim, 'onMark');
  trim.close();
  assert.equal(trim.armed, false);
  assert.equal(trim.trims, 1);
});

test('heap trim: no mark when the trim comes too soon after it for V8 to see a quiet window', SAFETY, async () => {
  let collections = 0;
  const trim = createHeapTrim({ idleMs: 30, markMs: 10, quietMs: 40, collect: () => collections++ });
  trim.onMark = () => assert.fail('a mark the trim cannot use');
  trim.begin();
  trim.end();
  await next(trim, 'onTrim');
  assert.deepEqual([trim.marks, trim.trims, collections], [0, 1, 1]);
});

test('heap trim: none while a call runs, one once the runtime is idle, one per idle period', SAFETY, async () => {
  const root = tree();
  const rt = runtimeAt(root, { workers: 1, index: 'off', heapTrimMs: 20, permissions: { allow: { run: true } } });
  // A call that runs until the test lets it end; a pool call starts and ends meanwhile.
  const waiting = rt.call('bash', { command: 'touch started; while [ ! -e go ]; do sleep 0.02; done' });
  assert.equal(rt.heapTrim.armed, false);
  const grep = await rt.call('grep', { pattern: 'TODO', output_mode: 'count' });
  assert.equal(grep.isError, false, grep.content);
  assert.equal(rt.heapTrim.armed, false, 'the bash call still runs: nothing may be pending');
  assert.equal(rt.heapTrim.trims, 0);

  // Garbage a full collection takes: the trim must collect, not only count.
  let garbage: object | undefined = { big: new Array(1000).fill('x') };
  const ref = new WeakRef(garbage);
  garbage = undefined;
  const trimmed = nextTrim(rt);
  writeFileSync(path.join(root, 'go'), '');
  const done = await waiting;
  assert.equal(done.isError, false, done.content);
  const ms = await trimmed;
  assert.equal(typeof ms, 'number');
  assert.ok(ms >= 0);
  assert.equal(rt.heapTrim.trims, 1);
  assert.equal(rt.heapTrim.lastMs, ms);
  assert.equal(ref.deref(), undefined, 'a full collection ran');
  assert.equal(rt.heapTrim.armed, false, 'one trim per idle period: nothing pending after it');

  // The next period, after the next call, gets its own.
  const again = nextTrim(rt);
  const read = await rt.call('read_file', { file_path: path.join(root, 'src/d0/f0.ts') });
  assert.equal(read.isError, false, read.content);
  await again;
  assert.equal(rt.heapTrim.trims, 2);
});

test('heap trim: a call in the idle wait puts it off; close() leaves nothing pending', SAFETY, async () => {
  const root = tree();
  // An idle time no test waits out: the trim stays pending until a call or close() drops it.
  const rt = runtimeAt(root, { workers: 1, index: 'off', heapTrimMs: 600_000 });
  rt.heapTrim.onTrim = () => assert.fail('no trim may run in this test');
  await rt.call('grep', { pattern: 'TODO' });
  assert.equal(rt.heapTrim.armed, true);
  const second = rt.call('glob', { pattern: '**/*.ts' });
  assert.equal(rt.heapTrim.armed, false, 'a call arriving drops the pending trim');
  await second;
  assert.equal(rt.heapTrim.armed, true, 'its end starts the wait again');
  await rt.close();
  assert.equal(rt.heapTrim.armed, false);
  assert.equal(rt.heapTrim.trims, 0);
});

test('heap trim: false turns it off', SAFETY, async () => {
  const rt = runtimeAt(tree(), { workers: 1, index: 'off', heapTrimMs: false });
  await rt.call('grep', { pattern: 'TODO' });
  assert.equal(rt.heapTrim.armed, false);
  assert.equal(rt.heapTrim.trims, 0);
});

test('heap trim: an index build a call started holds it off; the trim follows the build', SAFETY, async () => {
  const root = tree(2100);
  const cache = tempDir();
  const rt = runtimeAt(root, { workers: 1, index: 'build', indexCacheDir: cache, heapTrimMs: 20 });
  let builtAtTrim: boolean | undefined;
  const trimmed = nextTrim(rt, () => {
    builtAtTrim = rt.searchIndex?.loaded !== undefined;
  });
  // A pattern found nowhere walks the whole tree: a large one then starts a build in the background.
  const first = await rt.call('grep', { pattern: 'found-nowhere' });
  assert.equal(first.isError, false, first.content);
  assert.match(String(first.meta?.index), /no index/, 'the first whole-tree search starts the build');
  await trimmed;
  assert.equal(builtAtTrim, true, 'the first trim came after the build, not during it');
  // The index the trim waited for serves: a word in one file is found through it.
  const served = await rt.call('grep', { pattern: 'v1234 = 1234', output_mode: 'files_with_matches' });
  assert.match(String(served.meta?.index), /served/);
  assert.match(served.content, /f1234\.ts/);
});
