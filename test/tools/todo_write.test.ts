// todo_write through a real runtime: the validation table (what is refused, and that a refusal leaves
// the plan as it was), the answer's checklist, changes and next step, the items in meta.todos, one plan
// per agent run and one for calls no run made, runs' plans bounded; in plan mode and with every write
// denied it still runs (it asks for nothing).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TodoItem } from '../../lib/core/todos.ts';
import { TodoPlans } from '../../lib/lanes/todo_plans.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';

const rt = runtimeAt(tempDir(), { workers: 0 });
const write = (todos: unknown, run?: string) =>
  rt.call('todo_write', { todos }, run ? { origin: { run, turn: 1 } } : {});
const item = (content: string, status: TodoItem['status'] = 'pending') => ({ content, status });

test('todo_write: refuses what is not a plan, saying what to do; a refusal keeps the plan', async () => {
  const kept = await write([item('Keep me', 'in_progress')], 'refusals');
  assert.equal(kept.isError, false, kept.content);
  const cases: [unknown, RegExp][] = [
    [
      [item('Parse', 'in_progress'), item('Print'), item('Test', 'in_progress')],
      /^2 items are in_progress \("Parse", "Test"\): at most one item is in progress at a time\. Keep in_progress the one you are working on/,
    ],
    [[item('   \n ')], /todos\.0\.content: content is empty: each item says what to do/],
    [[item('x'.repeat(301))], /todos\.0\.content: content is over 300 characters/],
    [[{ content: 'Go', status: 'done' }], /todos\.0\.status: status is one of pending, in_progress, completed/],
    [[{ content: 'Go' }], /missing required key todos\.0\.status/],
    [[{ content: 'Go', status: 'pending', priority: 'high' }], /unknown key "priority"/],
    [Array.from({ length: 51 }, (_, i) => item(`step ${i}`)), /a plan holds at most 50 items/],
    ['do everything', /todos: Invalid type: Expected Array/],
  ];
  for (const [todos, message] of cases) {
    const r = await write(todos, 'refusals');
    assert.deepEqual([r.isError, r.code], [true, 'invalid_args'], JSON.stringify(todos).slice(0, 80));
    assert.match(r.content, message);
    assert.equal(r.meta?.todos, undefined);
  }
  // Still the plan from before the refusals: the next answer compares with it.
  const next = await write([item('Keep me', 'completed')], 'refusals');
  assert.match(next.content, /since the last update: completed "Keep me"/);
});

test('todo_write: answers with the checklist, what changed and what is next; meta.todos is the plan', async () => {
  const first = await write(
    [item('Read the parser', 'in_progress'), item('Fix the off-by-one'), item('Add a test')],
    'a',
  );
  assert.equal(first.isError, false, first.content);
  assert.equal(
    first.content,
    [
      'Plan updated (0 of 3 completed):',
      '[>] Read the parser',
      '[ ] Fix the off-by-one',
      '[ ] Add a test',
      'Now: "Read the parser". Mark it completed as soon as it is done, then start "Fix the off-by-one".',
    ].join('\n'),
  );
  // Whitespace runs, line breaks included, become one space: an item is one line.
  const second = await write(
    [
      item('Read the parser', 'completed'),
      item('Fix the\n  off-by-one', 'in_progress'),
      item('Run the whole suite'),
      item('Update the changelog'),
    ],
    'a',
  );
  assert.deepEqual(second.meta?.todos, [
    item('Read the parser', 'completed'),
    item('Fix the off-by-one', 'in_progress'),
    item('Run the whole suite'),
    item('Update the changelog'),
  ]);
  assert.match(
    second.content,
    /^Plan updated \(1 of 4 completed; since the last update: completed "Read the parser", started "Fix the off-by-one", 2 added, 1 removed\):\n\[x\] Read the parser\n\[>\] Fix the off-by-one\n/,
  );
  const paused = await write([item('Read the parser', 'completed'), item('Fix the off-by-one')], 'a');
  assert.match(paused.content, /set back to pending "Fix the off-by-one", 2 removed/);
  assert.match(paused.content, /\nNext: "Fix the off-by-one"\. Mark it in_progress when you start it\.$/);
  const done = await write([item('Read the parser', 'completed'), item('Fix the off-by-one', 'completed')], 'a');
  assert.match(
    done.content,
    /^Plan updated \(2 of 2 completed; since the last update: completed "Fix the off-by-one"\):/,
  );
  assert.match(done.content, /\nEvery item is completed\.$/);
  const cleared = await write([], 'a');
  assert.deepEqual([cleared.isError, cleared.content, cleared.meta?.todos], [false, 'The plan is cleared.', []]);
});

test('todo_write: each run has its own plan; calls without a run share the runtime one', async () => {
  await write([item('Parent step', 'in_progress')], 'parent');
  await write([item('Child step', 'in_progress')], 'child');
  await write([item('Client step')]);
  // Each answer compares with its own owner's plan: none was replaced by another's.
  const parent = await write([item('Parent step', 'completed')], 'parent');
  assert.match(parent.content, /since the last update: completed "Parent step"\)/);
  const client = await write([item('Client step', 'in_progress')]);
  assert.match(client.content, /since the last update: started "Client step"\)/);
  const child = await write([item('Child step', 'completed')], 'child');
  assert.match(child.content, /since the last update: completed "Child step"\)/);
  // A run that never wrote starts from nothing.
  const fresh = await write([item('Client step', 'in_progress')], 'fresh');
  assert.match(fresh.content, /^Plan updated \(0 of 1 completed\):/);
});

test('todo_write: asks for no permission — runs in plan mode and with writes denied', async () => {
  for (const options of [{ mode: 'plan' as const }, { permissions: { deny: { write: true, read: true } } }]) {
    const other = runtimeAt(tempDir(), { workers: 0, ...options });
    const r = await other.call('todo_write', { todos: [item('Look around', 'in_progress')] });
    assert.equal(r.isError, false, r.content);
    assert.equal(r.meta?.policy?.allow, true);
  }
  assert.equal(rt.registry.definitions().find((d) => d.name === 'todo_write')?.readOnly, true);
});

test('todo plans: only the runs that wrote last keep theirs; the runtime plan is never let go', () => {
  const plans = new TodoPlans(3);
  const plan = (s: string) => [item(s)];
  plans.set(undefined, plan('own'));
  for (const run of ['r1', 'r2', 'r3']) plans.set(run, plan(run));
  plans.set('r1', plan('r1 again')); // r1 is now the newest writer
  plans.set('r4', plan('r4'));
  assert.equal(plans.runs, 3);
  assert.deepEqual(plans.get('r2'), []);
  assert.deepEqual(
    ['r1', 'r3', 'r4'].map((r) => plans.get(r)[0]?.content),
    ['r1 again', 'r3', 'r4'],
  );
  for (let i = 0; i < 100; i++) plans.set(`run ${i}`, plan(String(i)));
  assert.equal(plans.runs, 3);
  assert.deepEqual(plans.get(undefined), plan('own'));
});
