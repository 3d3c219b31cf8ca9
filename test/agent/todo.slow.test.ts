/**
 * The agent's plan (todo_write) in real runs against the scripted server, both wires: the model writes
 * a plan and updates it, each change is a `todo` event and the model reads the checklist back; a
 * refused plan changes nothing; a sub-agent's plan is its own; compaction carries the plan into the
 * request after it; the CLI prints the plan as a checklist on stderr and stream-json has the events.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AgentEvent, runAgent } from '../../lib/agent/loop.ts';
import type { TodoItem } from '../../lib/core/todos.ts';
import { makeProvider } from '../../lib/llm/providers.ts';
import { CLEAN_ENV, runCli } from '../helpers/cli.ts';
import { type ScriptTurn, startModel } from '../helpers/fake_model.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

type Provider = 'anthropic' | 'openai';
const item = (content: string, status: TodoItem['status'] = 'pending'): TodoItem => ({ content, status });
const plan = (...todos: TodoItem[]) => ({ name: 'todo_write', input: { todos } });

async function agent(provider: Provider, script: ScriptTurn[], o: { summary?: string; contextTokens?: number } = {}) {
  const model = await startModel(script, o.summary === undefined ? {} : { summary: o.summary });
  const root = tempDir();
  writeTree(root, {
    'README.md': '# demo\n',
    // About 20,000 tokens by the loop's estimate: more than a small budget holds.
    'big.txt': Array.from({ length: 1500 }, (_, i) => `big line ${String(i).padStart(5, '0')} ${'x'.repeat(24)}`).join(
      '\n',
    ),
  });
  const made = makeProvider({
    provider,
    apiKey: 'k',
    baseURL: provider === 'openai' ? `${model.url}/v1` : model.url,
    maxRetries: 0,
  });
  assert.ok(made.ok);
  const events: AgentEvent[] = [];
  const r = await runAgent({
    task: 'fix the parser',
    provider: made.value,
    model: 'm',
    runtime: runtimeAt(root, { workers: 0 }),
    onEvent: (e) => events.push(e),
    ...(o.contextTokens ? { contextTokens: o.contextTokens } : {}),
  });
  const todos = events.filter((e) => e.type === 'todo').map((e) => [e.depth, e.todos]);
  return { r, model, todos, bodies: model.requests.map((q) => JSON.stringify(q.body)) };
}

for (const provider of ['anthropic', 'openai'] as const) {
  test(`agent (${provider}): the model writes its plan and updates it; each change is an event; a refused plan changes nothing`, async () => {
    const { r, todos, bodies } = await agent(provider, [
      { text: 'Planning.', calls: [plan(item('Read the parser', 'in_progress'), item('Fix the bug'))] },
      {
        calls: [
          plan(item('Read the parser', 'completed'), item('Fix the bug', 'in_progress'), item('Add a test')),
          { name: 'read_file', input: { file_path: 'README.md' } },
        ],
      },
      { calls: [plan(item('Fix the bug', 'in_progress'), item('Add a test', 'in_progress'))] },
      { text: 'Fixed.' },
    ]);
    assert.deepEqual([r.ok, r.answer], [true, 'Fixed.'], r.error);
    assert.deepEqual(todos, [
      [0, [item('Read the parser', 'in_progress'), item('Fix the bug')]],
      [0, [item('Read the parser', 'completed'), item('Fix the bug', 'in_progress'), item('Add a test')]],
    ]);
    // The system prompt says when to keep a plan; the model reads its checklist back, with what changed and what is next.
    assert.match(bodies[0] ?? '', /keep a plan with todo_write: one item in_progress at a time/);
    assert.match(bodies[1] ?? '', /\[>\] Read the parser\\n\[ \] Fix the bug\\nNow: \\"Read the parser\\"/);
    assert.match(
      bodies[2] ?? '',
      /since the last update: completed \\"Read the parser\\", started \\"Fix the bug\\", 1 added/,
    );
    assert.match(bodies[3] ?? '', /2 items are in_progress \(\\"Fix the bug\\", \\"Add a test\\"\)/);
  });

  test(`agent (${provider}): compaction carries the plan into the request after it`, async () => {
    const { r, bodies, todos } = await agent(
      provider,
      [
        { calls: [plan(item('Read big.txt', 'completed'), item('Write the parser', 'in_progress'), item('Test it'))] },
        { calls: [{ name: 'read_file', input: { file_path: 'big.txt' } }] },
        { text: 'Done.' },
      ],
      { summary: 'SUMMARY: read big.txt.', contextTokens: 18_000 },
    );
    assert.deepEqual([r.ok, r.answer], [true, 'Done.'], r.error);
    assert.equal(todos.length, 1);
    const compaction = bodies.findIndex((b) => b.includes('Summarize the conversation above'));
    assert.ok(compaction > 0, 'the conversation was compacted');
    const next = bodies[compaction + 1] ?? '';
    assert.match(next, /SUMMARY: read big\.txt\./);
    assert.match(
      next,
      /\[Your plan \(todo_write\) as it stood before compaction; go on from it, and keep it up to date with todo_write:\]\\n\[x\] Read big\.txt\\n\[>\] Write the parser\\n\[ \] Test it/,
    );
    // Nothing of the conversation before it is left but the compacted head.
    assert.ok(!next.includes('toolu_') && !next.includes('call_1_0'), 'the old calls are gone');
  });
}

test('agent: a sub-agent writes a plan of its own, which leaves its parent’s as it was', async () => {
  const { r, todos, bodies } = await agent('anthropic', [
    { calls: [plan(item('Delegate the survey', 'in_progress'), item('Summarize'))] },
    { calls: [{ name: 'agent', input: { prompt: 'survey the project', read_only: true } }] },
    { calls: [plan(item('List the files', 'in_progress'))] },
    { text: 'sub-agent: one README' },
    { calls: [plan(item('Delegate the survey', 'completed'), item('Summarize', 'in_progress'))] },
    { text: 'All done.' },
  ]);
  assert.deepEqual([r.ok, r.answer], [true, 'All done.'], r.error);
  assert.deepEqual(todos, [
    [0, [item('Delegate the survey', 'in_progress'), item('Summarize')]],
    [1, [item('List the files', 'in_progress')]],
    [0, [item('Delegate the survey', 'completed'), item('Summarize', 'in_progress')]],
  ]);
  // The read-only sub-agent was offered todo_write, and started from an empty plan.
  const subTools = ((JSON.parse(bodies[2] ?? '{}') as { tools: { name: string }[] }).tools ?? []).map((t) => t.name);
  assert.ok(subTools.includes('todo_write'), subTools.join(', '));
  assert.match(bodies[3] ?? '', /Plan updated \(0 of 1 completed\):/);
  // The parent's update is compared with the parent's plan, not the sub-agent's.
  assert.match(
    bodies[5] ?? '',
    /since the last update: completed \\"Delegate the survey\\", started \\"Summarize\\"\)/,
  );
});

for (const provider of ['anthropic', 'openai'] as const)
  test(`agent CLI (${provider}): the plan as a checklist on stderr, and todo events in stream-json`, async () => {
    const script: ScriptTurn[] = [
      { calls: [plan(item('Read the code', 'in_progress'), item('Fix it'), item('Test it'))] },
      { calls: [plan(item('Read the code', 'completed'), item('Fix it', 'in_progress'), item('Test it'))] },
      { text: 'Fixed.' },
    ];
    const cli = async (args: string[]) => {
      const model = await startModel(script);
      const base = provider === 'openai' ? `${model.url}/v1` : model.url;
      const root = tempDir();
      return runCli(['--root', root, '--provider', provider, '--base-url', base, ...args, 'fix it'], {
        env: { ...CLEAN_ENV, HOME: tempDir(), ANTHROPIC_API_KEY: 'k' },
      });
    };
    const text = await cli([]);
    assert.equal(text.code, 0, text.err);
    assert.equal(text.out, 'Fixed.\n');
    assert.deepEqual(text.err.trimEnd().split('\n').slice(0, 10), [
      '● todo_write(3 items)',
      '  ⎿ Plan updated (0 of 3 completed): (+4 lines)',
      '    ◐ Read the code',
      '    ☐ Fix it',
      '    ☐ Test it',
      '● todo_write(3 items)',
      '  ⎿ Plan updated (1 of 3 completed; since the last update: completed "Read the code", started "Fix it"): (+4 lines)',
      '    ☑ Read the code',
      '    ◐ Fix it',
      '    ☐ Test it',
    ]);
    const stream = await cli(['--output-format', 'stream-json']);
    assert.equal(stream.code, 0, stream.err);
    const events = stream.out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    assert.deepEqual(
      events.filter((e) => e.type === 'todo'),
      [
        { type: 'todo', todos: [item('Read the code', 'in_progress'), item('Fix it'), item('Test it')], depth: 0 },
        {
          type: 'todo',
          todos: [item('Read the code', 'completed'), item('Fix it', 'in_progress'), item('Test it')],
          depth: 0,
        },
      ],
    );
    // Each todo event follows its call's end.
    const at = (type: string, n: number) =>
      events.map((e, i) => [e.type, i] as const).filter(([t]) => t === type)[n]?.[1];
    assert.ok((at('tool_end', 0) ?? 99) < (at('todo', 0) ?? -1));
    assert.ok((at('tool_end', 1) ?? 99) < (at('todo', 1) ?? -1));
  });
