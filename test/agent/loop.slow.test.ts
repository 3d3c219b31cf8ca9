import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { subAgentTools } from '../../lib/agent/filter.ts';
import { type AgentEvent, runAgent } from '../../lib/agent/loop.ts';
import type { ToolDefinition } from '../../lib/core/registry.ts';
import { makeProvider, type ProviderName } from '../../lib/llm/providers.ts';
import type { Runtime, RuntimeOptions } from '../../lib/runtime/runtime.ts';
import { runCli } from '../helpers/cli.ts';
import { type ScriptTurn, startModel } from '../helpers/fake_model.ts';
import { killAfter, noSurvivors } from '../helpers/processes.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { waitFor } from '../helpers/wait.ts';

async function setup(name: ProviderName, script: ScriptTurn[], options: Omit<RuntimeOptions, 'root'> = {}) {
  const model = await startModel(script);
  const root = tempDir();
  writeTree(root, {
    'src/a.ts': 'export const answer = 41;\n',
    'src/b.ts': 'import { answer } from "./a";\n',
    'README.md': '# demo\n',
  });
  const rt: Runtime = runtimeAt(root, { workers: 2, permissions: { allow: { write: true, run: true } }, ...options });
  const made = makeProvider({
    provider: name,
    apiKey: 'test-key',
    baseURL: name === 'openai' ? `${model.url}/v1` : model.url,
    maxRetries: 0,
  });
  assert.ok(made.ok);
  const events: AgentEvent[] = [];
  const run = (
    task: string,
    { onEvent, ...extra }: { maxTurns?: number; signal?: AbortSignal; onEvent?: (e: AgentEvent) => void } = {},
  ) =>
    runAgent({
      task,
      provider: made.value,
      model: 'test-model',
      runtime: rt,
      onEvent: (e) => {
        events.push(e);
        onEvent?.(e);
      },
      ...extra,
    });
  return { model, root, rt, run, events };
}

for (const provider of ['anthropic', 'openai'] as const) {
  test(`agent (${provider}): reads, greps, edits and runs bash over three turns; reads overlap, writes do not`, async () => {
    const { model, root, run, events } = await setup(provider, [
      {
        text: 'Let me look.',
        calls: [
          { name: 'read_file', input: { file_path: 'src/a.ts' } },
          { name: 'grep', input: { pattern: 'answer', output_mode: 'files_with_matches' } },
          { name: 'glob', input: { pattern: '**/*.ts' } },
        ],
      },
      {
        calls: [
          { name: 'edit_file', input: { file_path: 'src/a.ts', old_string: '41', new_string: '42' } },
          { name: 'bash', input: { command: 'cat src/a.ts', description: 'show the file' } },
          { name: 'read_file', input: { file_path: 'README.md' } },
        ],
      },
      { text: 'The answer is now 42.' },
    ]);
    const r = await run('Make the answer 42.');
    assert.deepEqual([r.ok, r.reason, r.answer, r.turns], [true, 'end', 'The answer is now 42.', 3]);
    assert.equal(readFileSync(path.join(root, 'src/a.ts'), 'utf8'), 'export const answer = 42;\n');
    // Turn 1: the three reads all started before any finished.
    const t1 = events
      .filter(
        (e) => (e.type === 'tool_start' || e.type === 'tool_end') && ['read_file', 'grep', 'glob'].includes(e.name),
      )
      .slice(0, 6);
    const starts = t1.filter((e) => e.type === 'tool_start').map((e) => (e as { seq: number }).seq);
    const ends = t1.filter((e) => e.type === 'tool_end').map((e) => (e as { seq: number }).seq);
    assert.ok(Math.max(...starts) < Math.min(...ends), 'the reads of one turn overlap');
    // Turn 2: edit, then bash, then read — each after the previous one ended.
    const t2 = events
      .filter((e) => (e.type === 'tool_start' || e.type === 'tool_end') && e.seq > Math.max(...ends))
      .map((e) => `${e.type === 'tool_start' ? '>' : '<'}${(e as { name: string }).name}`);
    assert.deepEqual(t2.slice(0, 6), ['>edit_file', '<edit_file', '>bash', '<bash', '>read_file', '<read_file']);
    // The model saw the results in request order, with their ids.
    assert.equal(model.requests.length, 3);
    const second = JSON.stringify(model.requests[1]?.body.messages);
    assert.ok(
      second.indexOf('export const answer = 41') < second.indexOf('src/a.ts\\nsrc/b.ts'),
      'results in request order',
    );
    const third = JSON.stringify(model.requests[2]?.body.messages);
    assert.match(third, /exit_code: 0\\nexport const answer = 42;/);
    assert.ok(
      events.some((e) => e.type === 'text' && e.delta.length > 0),
      'text streamed',
    );
  });

  test(`agent (${provider}): a denied call is answered as an error and the run goes on`, async () => {
    const { model, root, run } = await setup(
      provider,
      [
        { calls: [{ name: 'write_file', input: { file_path: 'x.txt', content: 'x' } }] },
        { text: 'I could not write.' },
      ],
      { permissions: {} },
    );
    const r = await run('write x');
    assert.equal(r.answer, 'I could not write.');
    assert.throws(() => readFileSync(path.join(root, 'x.txt')));
    const sent = JSON.stringify(model.requests[1]?.body.messages);
    if (provider === 'anthropic') assert.match(sent, /"is_error":true/);
    else assert.match(sent, /ERROR: Permission needed: write_file wants to write/);
  });

  test(`agent (${provider}): three turns of only unknown tools trip the breaker`, async () => {
    const bogus = { calls: [{ name: 'teleport', input: {} }] };
    const { run } = await setup(provider, [bogus, bogus, bogus, bogus]);
    const r = await run('go');
    assert.deepEqual([r.ok, r.reason, r.turns], [false, 'unknown_tools', 3]);
    assert.match(r.error ?? '', /3 turns in a row called only tools that do not exist \(teleport\)/);
  });

  test(`agent (${provider}): max turns bound the run`, async () => {
    const loop = { calls: [{ name: 'read_file', input: { file_path: 'README.md' } }] };
    const { run } = await setup(provider, [loop, loop, loop]);
    const r = await run('go', { maxTurns: 2 });
    assert.deepEqual([r.reason, r.turns], ['max_turns', 2]);
  });

  test(`agent (${provider}): a provider failure mid-stream and a 429 stop the run with a clear error`, async () => {
    const cut = await setup(provider, [{ text: 'Starting to answer and then', cut: true }]);
    const r = await cut.run('go');
    assert.equal(r.reason, 'error');
    const url = provider === 'anthropic' ? `${cut.model.url}/v1/messages` : `${cut.model.url}/v1/chat/completions`;
    assert.match(r.error ?? '', /the connection closed in the middle of the answer, after \d+ stream events/);
    assert.ok(r.error?.startsWith(`${provider} (${url}): `), r.error);
    const limited = await setup(provider, [{ status: 429 }]);
    const l = await limited.run('go');
    const at =
      provider === 'anthropic' ? `${limited.model.url}/v1/messages` : `${limited.model.url}/v1/chat/completions`;
    assert.equal(
      l.error,
      `${provider} (${at}): rate limited (429); retry after 7 s: slow down. Wait, or lower the request rate.`,
    );
  });

  test(`agent (${provider}): plan mode offers only read-only tools`, async () => {
    const { model, run } = await setup(
      provider,
      [{ calls: [{ name: 'write_file', input: { file_path: 'x', content: 'x' } }] }, { text: 'plan: …' }],
      { mode: 'plan' },
    );
    const r = await run('plan it');
    assert.equal(r.ok, true);
    const tools = ((model.requests[0]?.body.tools ?? []) as { name?: string; function?: { name: string } }[]).map(
      (t) => t.name ?? t.function?.name,
    );
    assert.deepEqual(tools, ['read_file', 'glob', 'grep', 'load_skill', 'bash_output', 'web_fetch', 'todo_write']);
    assert.match(
      JSON.stringify(model.requests[1]?.body.messages),
      /There is no tool named \\"write_file\\" in this run/,
    );
  });
}

test('agent: Anthropic requests cache the system prompt and the tool list', async () => {
  const { model, run } = await setup('anthropic', [{ text: 'ok' }]);
  await run('hi');
  const body = model.requests[0]?.body as {
    system: { cache_control?: unknown }[];
    tools: { name: string; cache_control?: unknown }[];
  };
  assert.deepEqual(body.system[0]?.cache_control, { type: 'ephemeral' });
  assert.deepEqual(body.tools.at(-1)?.cache_control, { type: 'ephemeral' });
  assert.equal(body.tools.at(-1)?.name, 'agent');
  assert.equal(body.tools.filter((t) => t.cache_control).length, 1);
  assert.match(JSON.stringify(body.system), /Root: \/.*Platform: linux/);
});

test('agent: Ctrl-C stops the running command and answers the rest as cancelled', async () => {
  // A duration only this test uses, so the process table shows only ours; an hour, so the run
  // ending at all shows the command was stopped rather than waited for.
  const nap = `3621.${process.pid}`;
  killAfter(nap);
  const { root, run, events } = await setup('openai', [
    {
      calls: [
        { name: 'bash', input: { command: `touch started; sleep ${nap}` } },
        { name: 'read_file', input: { file_path: 'README.md' } },
      ],
    },
  ]);
  const controller = new AbortController();
  let bashStarted!: () => void;
  const started = new Promise<void>((resolve) => {
    bashStarted = resolve;
  });
  const running = run('go', {
    signal: controller.signal,
    onEvent: (e) => {
      if (e.type === 'tool_start' && e.name === 'bash') bashStarted();
    },
  });
  // Ctrl-C once the command is really running: after its tool_start, when its flag file appears.
  await Promise.race([started, running.then((r) => assert.fail(`the run ended (${r.reason}) before bash started`))]);
  await waitFor(() => existsSync(path.join(root, 'started')), 'the command to start');
  controller.abort();
  const r = await running;
  assert.equal(r.reason, 'cancelled');
  const ends = events
    .filter((e) => e.type === 'tool_end')
    .map((e) => [(e as { name: string }).name, (e as { result: { code?: string } }).result.code]);
  assert.deepEqual(ends, [
    ['bash', 'cancelled'],
    ['read_file', 'cancelled'],
  ]);
  await noSurvivors(nap);
});

test('agent: sub-agents get filtered tools — never agent; read-only ones only the tools that read', async () => {
  const { model, run } = await setup('anthropic', [
    { calls: [{ name: 'agent', input: { prompt: 'look around', read_only: true } }] },
    { text: 'sub-agent: nothing found' },
    { calls: [{ name: 'agent', input: { prompt: 'fix it', disallowed_tools: ['bash'] } }] },
    { text: 'fixed' },
    { text: 'all done' },
  ]);
  const r = await run('delegate');
  assert.equal(r.answer, 'all done');
  // Five requests in all, the sub-agents' two included in the run's totals.
  assert.deepEqual(r.usage, { input: 25, output: 45 });
  const toolsOf = (i: number) => ((model.requests[i]?.body.tools ?? []) as { name: string }[]).map((t) => t.name);
  assert.ok(toolsOf(0).includes('agent'));
  assert.deepEqual(toolsOf(1), ['read_file', 'glob', 'grep', 'load_skill', 'bash_output', 'web_fetch', 'todo_write']);
  assert.deepEqual(toolsOf(3), [
    'read_file',
    'glob',
    'grep',
    'load_skill',
    'web_fetch',
    'todo_write',
    'write_file',
    'edit_file',
    'multi_edit',
    'apply_patch',
    'notebook_edit',
    'install_skill',
  ]);
  assert.match(JSON.stringify(model.requests[2]?.body.messages), /sub-agent: nothing found/);
});

test('agent filter: system tools survive every filter; read-only agents get read-only MCP tools, not writing ones', () => {
  const d = (name: string, readOnly: boolean, system = false): ToolDefinition => ({
    name,
    description: '',
    inputSchema: { type: 'object', properties: {} },
    readOnly,
    system,
  });
  const all = [
    d('read_file', true),
    d('bash', false),
    d('agent', false),
    d('load_skill', true, true),
    d('mcp__gh__issues', true),
    d('mcp__gh__comment', false),
  ];
  assert.deepEqual(
    subAgentTools(all, { readOnly: true }).map((t) => t.name),
    ['read_file', 'load_skill', 'mcp__gh__issues'],
  );
  assert.deepEqual(
    subAgentTools(all, { allowed: ['bash'] }).map((t) => t.name),
    ['bash', 'load_skill'],
  );
  assert.deepEqual(
    subAgentTools(all, { disallowed: ['read_file', 'mcp__gh__issues', 'mcp__gh__comment'] }).map((t) => t.name),
    ['bash', 'load_skill'],
  );
  // The job tools go and come with bash: write_stdin to a shell job would run commands.
  const withJobs = [...all, d('bash_output', true), d('kill_bash', false), d('write_stdin', false)];
  assert.deepEqual(
    subAgentTools(withJobs, { disallowed: ['bash'] }).map((t) => t.name),
    ['read_file', 'load_skill', 'mcp__gh__issues', 'mcp__gh__comment'],
  );
  assert.deepEqual(
    subAgentTools(withJobs, { allowed: ['bash'] }).map((t) => t.name),
    ['bash', 'load_skill', 'bash_output', 'kill_bash', 'write_stdin'],
  );
});

test('agent CLI: the answer streams to stdout, activity to stderr; a local OpenAI-compatible server needs no key', async () => {
  const model = await startModel([
    { text: 'Reading. ', calls: [{ name: 'read_file', input: { file_path: 'README.md' } }] },
    { text: 'It is a demo.' },
  ]);
  const root = tempDir();
  writeTree(root, { 'README.md': '# demo\n' });
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(ANTHROPIC|OPENAI)_/.test(k)));
  // Not spawnSync: the model server lives in this process and must keep answering.
  const r = await run(['--root', root, ...model.openaiFlags, '--model', 'local', 'What is this project?'], env);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'Reading. \nIt is a demo.\n');
  assert.equal(r.err, '● read_file(README.md)\n  ⎿ 1 # demo\nmewcode: 2 turns, 10 input tokens, 18 output tokens\n');
  const piped = await run(['--root', root, ...model.openaiFlags, '--json'], env, 'from stdin');
  assert.equal(piped.code, 0, piped.err);
  assert.equal(JSON.parse(piped.out).answer, 'done');
  assert.match(JSON.stringify(model.requests.at(-1)?.body.messages), /from stdin/);
});

const run = (args: string[], env: NodeJS.ProcessEnv, input?: string) =>
  runCli(args, { env, ...(input !== undefined ? { input } : {}) });
