/**
 * todo_write from the outside: a plan whose items carry terminal escapes, bidi overrides and line
 * breaks reaches the CLI's stderr escaped; 51 items are refused, 50 taken.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { startModel } from '../helpers/fake_model.ts';
import { tempDir } from '../helpers/temp.ts';

test('todo_write items with escapes reach the CLI escaped; 51 items refused, 50 taken', async () => {
  const nasty = '\u001b]0;PWNED\u0007\u001b[2JRun \u202etset\u202c\u0085 and\nmore';
  const items = (n: number) => Array.from({ length: n }, (_, i) => ({ content: `step ${i}`, status: 'pending' }));
  const model = await startModel([
    { calls: [{ name: 'todo_write', input: { todos: [{ content: nasty, status: 'in_progress' }] } }] },
    { calls: [{ name: 'todo_write', input: { todos: items(51) } }] },
    { calls: [{ name: 'todo_write', input: { todos: items(50) } }] },
    { text: 'done' },
  ]);
  const r = await runCli([
    ...model.openaiFlags,
    '--model',
    'm',
    '--root',
    tempDir(),
    '--audit-log',
    'off',
    'run',
    'go',
  ]);
  assert.equal(r.code, 0, r.err);
  for (const c of ['\u001b', '\u0007', '\u202e', '\u0085']) assert.ok(!r.err.includes(c), JSON.stringify(r.err));
  const bodies = model.requests.map((q) => JSON.stringify(q.body.messages));
  assert.match(bodies[2] ?? '', /at most 50 items/);
  assert.match(r.err, /step 49/);
});
