/**
 * Many calls on one caller's signal (a batch, a host's request signal): each follows it, none leaves
 * a listener behind, and Node sees one listener however many there are — eleven once set off its
 * MaxListenersExceededWarning, printed on an MCP server's stderr for what is no leak.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { callDeadline } from '../../lib/core/deadline.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const listeners = (s: AbortSignal) => getEventListeners(s, 'abort').length;

test('deadline: forty calls on one signal add one listener; each follows it; a cleared one does not', () => {
  const caller = new AbortController();
  const calls = Array.from({ length: 40 }, () => callDeadline(caller.signal, 60_000));
  assert.equal(listeners(caller.signal), 1);
  const [done, ...running] = calls as [ReturnType<typeof callDeadline>, ...ReturnType<typeof callDeadline>[]];
  done.clear();
  assert.equal(listeners(caller.signal), 1, 'the others still follow');
  caller.abort(new Error('stop'));
  assert.equal(done.signal.aborted, false, 'a call that ended is not aborted');
  for (const c of running) assert.equal((c.signal.reason as Error).message, 'stop');
  for (const c of running) c.clear();
  assert.equal(listeners(caller.signal), 0);
});

test('deadline: once every call has ended, the caller signal holds no listener, and a new call follows again', () => {
  const caller = new AbortController();
  const first = Array.from({ length: 12 }, () => callDeadline(caller.signal, 60_000));
  for (const c of first) c.clear();
  assert.equal(listeners(caller.signal), 0);
  const later = callDeadline(caller.signal, 60_000);
  assert.equal(listeners(caller.signal), 1);
  caller.abort();
  assert.equal(later.signal.aborted, true);
  later.clear();
  const after = callDeadline(caller.signal, 60_000);
  assert.equal(after.signal.aborted, true, 'a call on an aborted signal is aborted at once');
  after.clear();
});

test('deadline: a batch of fourteen pool searches on one signal prints no warning', async () => {
  const dir = tempDir('mewcode-deadline-followers-');
  writeTree(dir, Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}.txt`, `word ${i}\n`])));
  const rt = runtimeAt(dir, { workers: 2 });
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  try {
    const caller = new AbortController();
    const calls = Array.from({ length: 14 }, (_, i) => ({ name: 'grep', input: { pattern: `word ${i}` } }));
    const results = await rt.batch(calls, { signal: caller.signal });
    assert.deepEqual(
      results.map((r) => r.isError),
      calls.map(() => false),
    );
    await new Promise((r) => setImmediate(r)); // a warning is emitted on the next tick
    assert.deepEqual(
      warnings.map((w) => w.name),
      [],
    );
    assert.equal(listeners(caller.signal), 0);
  } finally {
    process.off('warning', onWarning);
    await rt.close();
  }
});
