/**
 * Tool search in an agent run, over both wires: a real MCP server (the SDK's, stdio) with 150 tools
 * is connected; the scripted model (official SDKs, loopback) sees the built-in tools and tool_search
 * instead of them, finds one, and calls it from the next request on. A deferred tool called before it
 * is found gets an error saying what to do; a sub-agent starts with its own set; plan mode defers only
 * read-only tools; a few tools, or tool search turned off, are sent as they are.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { runAgent } from '../../lib/agent/loop.ts';
import type { AgentOptions } from '../../lib/agent/types.ts';
import type { Message } from '../../lib/llm/provider.ts';
import { connectMcpServer } from '../../lib/mcp/client.ts';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../lib/runtime/runtime.ts';
import { providerFor, type ScriptTurn, startModel } from '../helpers/fake_model.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';

const closers: (() => Promise<void>)[] = [];
after(() => Promise.all(closers.map((c) => c())));

/** A runtime with the devhub server's first `count` generated tools (all 150 by default). */
async function runtimeWithTools(count?: number, o: Omit<RuntimeOptions, 'root'> = {}): Promise<Runtime> {
  const rt = runtimeAt(tempDir(), { workers: 0, permissions: { allow: { run: true } }, ...o });
  const c = await connectMcpServer(rt, 'devhub', {
    command: process.execPath,
    args: ['--import', TSX, path.join(REPO, 'test/fixtures/mcp_many.ts'), 'devhub', ...(count ? [String(count)] : [])],
    trustReadOnlyHints: true,
  });
  closers.push(() => c.close());
  return rt;
}

/** One server for the tests that only read the registry: started once, closed when the file ends. */
const shared = await runtimeWithTools();

async function scripted(
  provider: 'anthropic' | 'openai',
  rt: Runtime,
  script: ScriptTurn[],
  extra: Partial<AgentOptions> = {},
) {
  const model = await startModel(script);
  const r = await runAgent({
    task: 'go',
    provider: providerFor(provider, model),
    model: 'test-model',
    runtime: rt,
    ...extra,
  });
  /** The tool names each request carried, on its own wire. */
  const sent = model.requests.map((q) =>
    ((q.body.tools ?? []) as { name?: string; function?: { name: string } }[]).map((t) => t.name ?? t.function?.name),
  );
  return { r, sent };
}

const results = (transcript: readonly Message[]) =>
  transcript.flatMap((m) => (m.role === 'tool_results' ? m.results : []));

const CREATE = 'mcp__devhub__github_create_issue';
const MERGE = 'mcp__devhub__github_merge_pull_request';

for (const provider of ['anthropic', 'openai'] as const) {
  test(`tool search (${provider}): MCP tools wait behind tool_search; a found one is sent and called, one not found yet is refused`, async () => {
    const rt = shared;
    const { r, sent } = await scripted(provider, rt, [
      { calls: [{ name: MERGE, input: { owner: 'o', repo: 'r', pull_number: 1 } }] },
      { calls: [{ name: 'tool_search', input: { query: 'github_create_issue' } }] },
      { calls: [{ name: CREATE, input: { owner: 'o', repo: 'r', title: 'Login fails' } }] },
      { text: 'Opened it.' },
    ]);
    assert.deepEqual([r.ok, r.answer, r.turns], [true, 'Opened it.', 4]);
    const [first, , third] = sent;
    assert.ok(first?.includes('tool_search') && first.includes('read_file'), 'built-ins and tool_search are sent');
    assert.ok(!first?.some((n) => n?.startsWith('mcp__')), 'no MCP tool in the first request');
    assert.equal(sent[1]?.length, first?.length, 'a refused call finds nothing');
    // The search found create_issue (and up to four more), sent from the next request on.
    assert.ok(third?.includes(CREATE));
    const found = third?.filter((n) => n?.startsWith('mcp__')) ?? [];
    assert.ok(found.length >= 1 && found.length <= 5, found.join(', '));
    assert.ok(!third?.includes(MERGE), 'the refused tool was never found');
    const [refused, search, created] = results(r.transcript);
    assert.equal(refused?.isError, true);
    assert.match(
      refused?.content ?? '',
      /^mcp__devhub__github_merge_pull_request is not loaded yet: .* Call tool_search with \{"query": "mcp__devhub__github_merge_pull_request"\} first/,
    );
    assert.equal(search?.isError, false);
    assert.match(
      search?.content ?? '',
      /^\d tools? found; .* can be called from now on:\n\n## mcp__devhub__github_create_issue\nCreates a new issue in GitHub\.\nInput schema: \{"type":"object"/,
    );
    assert.match(search?.content ?? '', /"title":\{"type":"string","description":"Issue title"\}/);
    assert.deepEqual(
      [created?.isError, created?.content],
      [false, 'github_create_issue ran with {"owner":"o","repo":"r","title":"Login fails"}'],
    );
  });

  test(`tool search (${provider}): a sub-agent starts with none found and finds its own; a read-only one only read-only tools`, async () => {
    const rt = shared;
    const { r, sent } = await scripted(
      provider,
      rt,
      [
        { calls: [{ name: 'tool_search', input: { query: 'github_create_issue', max_results: 1 } }] },
        { calls: [{ name: 'agent', input: { prompt: 'Look at issue 7.', read_only: true } }] },
        // The sub-agent's turns.
        {
          calls: [
            { name: 'tool_search', input: { query: 'get one github issue', max_results: 3 } },
            { name: CREATE, input: { owner: 'o', repo: 'r', title: 'x' } },
          ],
        },
        { text: 'Issue 7 is about login.' },
        { text: 'Done.' },
      ],
      // Fewer than the default's 100 read-only tools: the option reaches the sub-agent too.
      { toolSearch: { maxTools: 20 } },
    );
    assert.deepEqual([r.ok, r.answer], [true, 'Done.']);
    const [, parentSecond, subFirst, subSecond, parentLast] = sent;
    assert.ok(parentSecond?.includes(CREATE), 'the parent found create_issue');
    assert.ok(
      subFirst?.includes('tool_search') && !subFirst.some((n) => n?.startsWith('mcp__')),
      'the sub-agent starts with none',
    );
    const subFound = subSecond?.filter((n) => n?.startsWith('mcp__')) ?? [];
    assert.ok(subFound.includes('mcp__devhub__github_get_issue'), subFound.join(', '));
    assert.equal(subFound.length, 3);
    for (const n of subFound) assert.equal(rt.registry.get(n ?? '')?.readOnly, true, `${n} is read-only`);
    assert.ok(!parentLast?.includes('mcp__devhub__github_get_issue'), 'what the sub-agent found stays its own');
    // The read-only sub-agent has no create_issue, deferred or not.
    const agentAnswer = results(r.transcript).find((x) => x.name === 'agent');
    assert.equal(agentAnswer?.content, 'Issue 7 is about login.');
  });
}

test('tool search: the sub-agent cannot call a write tool it was never given', async () => {
  const rt = shared;
  const events: { name: string; content: string }[] = [];
  const model = await startModel([
    { calls: [{ name: 'agent', input: { prompt: 'Try it.', read_only: true } }] },
    { calls: [{ name: CREATE, input: { owner: 'o', repo: 'r', title: 'x' } }] },
    { text: 'Could not.' },
    { text: 'Done.' },
  ]);
  const r = await runAgent({
    task: 'go',
    provider: providerFor('anthropic', model),
    model: 'test-model',
    runtime: rt,
    toolSearch: { maxTools: 20 },
    onEvent: (e) => {
      if (e.type === 'tool_end' && e.depth === 1) events.push({ name: e.name, content: e.result.content });
    },
  });
  assert.equal(r.answer, 'Done.');
  assert.equal(events[0]?.name, CREATE);
  assert.match(
    events[0]?.content ?? '',
    /^There is no tool named "mcp__devhub__github_create_issue" in this run\. .*, and \d+ MCP tools to find with tool_search\.$/,
  );
});

test('tool search: plan mode defers only the read-only MCP tools, and finds only them', async () => {
  const rt = await runtimeWithTools(undefined, { mode: 'plan' });
  const { r, sent } = await scripted(
    'openai',
    rt,
    [{ calls: [{ name: 'tool_search', input: { query: 'github_create_issue' } }] }, { text: 'Planned.' }],
    { toolSearch: { maxTools: 20 } },
  );
  assert.equal(r.answer, 'Planned.');
  assert.ok(sent[0]?.includes('tool_search'));
  const found = sent[1]?.filter((n) => n?.startsWith('mcp__')) ?? [];
  assert.ok(found.length > 0 && !found.includes(CREATE), found.join(', '));
  for (const n of found) assert.equal(rt.registry.get(n ?? '')?.readOnly, true, `${n} is read-only`);
  const search = results(r.transcript)[0]?.content ?? '';
  assert.doesNotMatch(search, /github_create_issue/);
});

test('tool search: a few MCP tools, or tool search turned off, are sent as they are', async () => {
  const few = await runtimeWithTools(5);
  const small = await scripted('anthropic', few, [{ text: 'ok' }]);
  const mcp = small.sent[0]?.filter((n) => n?.startsWith('mcp__')) ?? [];
  assert.equal(mcp.length, 5);
  assert.ok(!small.sent[0]?.includes('tool_search'));
  const off = await scripted('openai', shared, [{ text: 'ok' }], { toolSearch: false });
  assert.equal(off.sent[0]?.filter((n) => n?.startsWith('mcp__')).length, 150);
  assert.ok(!off.sent[0]?.includes('tool_search'));
  // The share of the context decides too: 150 tools under a raised count still pass 10% of 128k tokens.
  const share = await scripted('anthropic', shared, [{ text: 'ok' }], {
    toolSearch: { maxTools: 1000 },
  });
  assert.ok(share.sent[0]?.includes('tool_search'));
  const wide = await scripted('anthropic', shared, [{ text: 'ok' }], {
    toolSearch: { maxTools: 1000, share: 0.9 },
  });
  assert.ok(!wide.sent[0]?.includes('tool_search'));
});

test('tool search: calling only deferred tools not found yet, turn after turn, trips the unknown-tool breaker', async () => {
  const call = { calls: [{ name: MERGE, input: { owner: 'o', repo: 'r', pull_number: 1 } }] };
  const { r } = await scripted('openai', shared, [call, call, call, { text: 'never asked' }]);
  assert.deepEqual([r.ok, r.reason, r.turns], [false, 'unknown_tools', 3]);
  assert.match(
    r.error ?? '',
    /3 turns in a row called only tools that do not exist \(mcp__devhub__github_merge_pull_request\)/,
  );
});

test('tool search: the settings file says when (false: never; a count); the agent option comes first', async () => {
  const home = tempDir();
  const write = (toolSearch: unknown) =>
    writeFileSync(path.join(home, '.mewcode', 'settings.json'), JSON.stringify({ toolSearch }));
  mkdirSync(path.join(home, '.mewcode'));
  write(false);
  const never = await runtimeWithTools(150, { home });
  assert.deepEqual(never.toolSearch, false);
  const off = await scripted('anthropic', never, [{ text: 'ok' }]);
  assert.ok(!off.sent[0]?.includes('tool_search'));
  const asked = await scripted('anthropic', never, [{ text: 'ok' }], { toolSearch: {} });
  assert.ok(asked.sent[0]?.includes('tool_search'), 'the option comes before the settings');
  write({ maxTools: 2 });
  const few = await scripted('anthropic', await runtimeWithTools(5, { home }), [{ text: 'ok' }]);
  assert.ok(few.sent[0]?.includes('tool_search'));
  write({ share: 2 });
  const bad = createRuntime({ root: tempDir(), home, workers: 0 });
  assert.equal(bad.ok, false);
  assert.match(bad.ok ? '' : bad.error, /toolSearch/);
});
