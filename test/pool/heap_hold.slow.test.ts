/**
 * The runtime keeps the main thread's young generation at its size while it works, also after its
 * pool started a worker (V8 puts the growth factor back whenever it sets up an isolate),
 * and its old generation collected soon after it grows (core/heap_hold.ts); it leaves both alone with
 * `heapTrimMs: false` or without a pool (a one-shot), and a runtime whose making threw holds nothing,
 * where the same burst grows the young generation
 * and the same churn lets the old one grow to several times its live objects. Each in a child
 * process of its own (test/fixtures/heap_hold.ts): V8's flags are the process's.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { REPO, TSX } from '../helpers/repo.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

interface Held {
  isError: boolean;
  text: string;
  before: number;
  started: number;
  after: number;
  oldMost: number;
}

function run(root: string, mode: 'held' | 'untrimmed' | 'inline' | 'thrown'): Held {
  const r = spawnSync(process.execPath, ['--import', TSX, path.join(REPO, 'test/fixtures/heap_hold.ts'), root, mode], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Held;
}

test('heap hold: the young generation at its size through a pool worker start and a burst, the old one collected as it grows; neither without the trim or the pool', {
  timeout: 120_000,
}, () => {
  const root = tempDir();
  writeTree(root, { 'a.ts': '// TODO one\n', 'b.ts': 'none\n' });
  const held = run(root, 'held');
  assert.equal(held.isError, false, held.text);
  assert.match(held.text, /a\.ts:1/);
  // Held again once the worker is up: the burst does not grow it (a full collection in it may shrink
  // it). Not compared with before the call: a scavenge in the milliseconds between the worker's
  // isolate set-up (which puts V8's factor back, on the worker's thread) and the hold again can
  // double it once (seen 1 run in 20).
  assert.ok(held.after <= held.started, `held: ${held.started} → ${held.after} bytes`);
  for (const mode of ['untrimmed', 'inline', 'thrown'] as const) {
    const free = run(root, mode);
    assert.equal(free.isError, false, free.text);
    assert.ok(free.after >= 4 * free.before, `${mode}: the burst grows it: ${free.before} → ${free.after} bytes`);
    // ~30 MiB live and four 2 MiB batches kept at a time: held, a full collection comes at about a
    // third over that (measured: 68–70 MiB at most); V8's own factor let it reach 197–209.
    const mib = (n: number) => Math.round(n / 1048576);
    assert.ok(
      held.oldMost < 0.6 * free.oldMost,
      `${mode}: old space at most ${mib(held.oldMost)} MiB held, ${mib(free.oldMost)} not`,
    );
  }
});
