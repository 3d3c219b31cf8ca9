/**
 * A misbehaving model server, both wires, through the official SDKs: output cut by the output limit,
 * empty answers, duplicate and empty call ids, a stream that stalls after its headers, 500/529 and a
 * reset connection (retried, visibly), a 200 HTML page and a refused connection (errors naming the URL).
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { type AgentEvent, runAgent } from '../../lib/agent/loop.ts';
import { ProviderError } from '../../lib/llm/errors.ts';
import { makeProvider, type ProviderName } from '../../lib/llm/providers.ts';
import { backoffMs } from '../../lib/llm/retry.ts';
import type { Runtime } from '../../lib/runtime/runtime.ts';
import { refusingUrl, type ScriptTurn, startModel } from '../helpers/fake_model.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

// Retries wait a millisecond per step here, so the tests stay fast; the stall limit is small but far
// above how long the local server takes to answer, so only the scripted stall trips it.
process.env.MEWCODE_RETRY_BASE_MS = '1';
process.env.MEWCODE_STREAM_IDLE_MS = '1500';

const HELLO = 'line one\nline two\nthree\n';

async function setup(name: ProviderName, script: ScriptTurn[], maxRetries = 0, baseURL?: string) {
  const model = await startModel(script);
  const root = tempDir();
  writeTree(root, { 'hello.txt': HELLO });
  const rt: Runtime = runtimeAt(root, { workers: 1, permissions: { allow: { write: true, run: true } } });
  const url = baseURL ?? (name === 'openai' ? `${model.url}/v1` : model.url);
  const made = makeProvider({ provider: name, apiKey: 'k', baseURL: url, maxRetries });
  assert.ok(made.ok);
  const events: AgentEvent[] = [];
  const run = (task = 'go') =>
    runAgent({ task, provider: made.value, model: 'test-model', runtime: rt, onEvent: (e) => events.push(e) });
  const endpoint = name === 'openai' ? `${url}/chat/completions` : `${url}/v1/messages`;
  return { model, root, run, events, endpoint };
}

const messagesOf = (body: Record<string, unknown>) => JSON.stringify(body.messages);

for (const provider of ['anthropic', 'openai'] as const) {
  test(`${provider}: a tool call cut by the output limit is never run; the model is told and the user sees it`, async () => {
    const { model, root, run, events } = await setup(provider, [
      // Read first, so a write of the file would be allowed to go through.
      { calls: [{ name: 'read_file', input: { file_path: 'hello.txt' } }] },
      {
        // The closing brace never came: the partial input would overwrite the file if it ran.
        calls: [{ name: 'write_file', input: {}, raw: '{"file_path":"hello.txt","content":"line one\\nline two\\n"' }],
        outputLimit: true,
      },
      { text: 'I will write it in parts.' },
    ]);
    const r = await run();
    assert.equal(r.ok, true);
    assert.equal(readFileSync(path.join(root, 'hello.txt'), 'utf8'), HELLO);
    assert.equal(statSync(path.join(root, 'hello.txt')).size, 24);
    assert.deepEqual(
      events.filter((e) => e.type === 'tool_start').map((e) => (e as { name: string }).name),
      ['read_file'],
    );
    assert.match(
      messagesOf(model.requests[2]?.body ?? {}),
      /cut off by the output limit .* so it was NOT run\. Split the work/,
    );
    const notices = events.filter((e) => e.type === 'notice').map((e) => (e as { message: string }).message);
    assert.match(notices.join('\n'), /cut off by the output limit \(\d+ tokens\): its 1 tool call was not run/);
  });

  test(`${provider}: an answer cut by the output limit, and an empty answer, fail the run in words`, async () => {
    const cut = await setup(provider, [{ text: 'The three causes are: first, the', outputLimit: true }]);
    const c = await cut.run();
    assert.deepEqual([c.ok, c.reason, c.answer], [false, 'truncated', 'The three causes are: first, the']);
    assert.match(c.error ?? '', /cut off by the output limit .*incomplete/);
    const empty = await setup(provider, [{}]);
    const e = await empty.run();
    assert.deepEqual([e.ok, e.reason, e.answer], [false, 'empty', '']);
    assert.match(e.error ?? '', /empty message/);
  });

  test(`${provider}: duplicate and empty call ids get ids of their own, on the call and on its result`, async () => {
    const read = { name: 'read_file', input: { file_path: 'hello.txt' } };
    const { model, run, events } = await setup(provider, [
      {
        calls: [
          { ...read, id: 'dup' },
          { ...read, id: 'dup' },
          { ...read, id: '' },
        ],
      },
      { calls: [{ ...read, id: 'dup' }] },
      { text: 'done' },
    ]);
    const r = await run();
    assert.equal(r.ok, true);
    const starts = events.filter((e) => e.type === 'tool_start').map((e) => (e as { id: string }).id);
    assert.equal(new Set(starts).size, 4);
    assert.ok(starts.every((id) => /^[A-Za-z0-9_-]+$/.test(id)));
    // What went back on the wire: every result answers exactly one call, by a non-empty unique id.
    const body = model.requests[2]?.body as { messages: Record<string, unknown>[] };
    const callIds: string[] = [];
    const resultIds: string[] = [];
    for (const m of body.messages) {
      if (provider === 'anthropic') {
        for (const b of (Array.isArray(m.content) ? m.content : []) as Record<string, string>[]) {
          if (b.type === 'tool_use') callIds.push(b.id as string);
          if (b.type === 'tool_result') resultIds.push(b.tool_use_id as string);
        }
      } else {
        for (const c of (m.tool_calls ?? []) as { id: string }[]) callIds.push(c.id);
        if (m.role === 'tool') resultIds.push(m.tool_call_id as string);
      }
    }
    assert.deepEqual(callIds, starts);
    assert.deepEqual(resultIds, starts);
  });

  test(`${provider}: a stream that stalls after its headers is aborted by the idle limit and retried`, async () => {
    const { run, events } = await setup(provider, [{ stall: true }, { text: 'recovered' }], 2);
    const r = await run();
    assert.deepEqual([r.ok, r.answer], [true, 'recovered']);
    const retries = events.filter((e) => e.type === 'retry').map((e) => (e as { notice: unknown }).notice);
    assert.equal(retries.length, 1);
    assert.match(JSON.stringify(retries[0]), /"attempt":2,"of":3,.*"why":"stream stalled"/);
  });

  test(`${provider}: a stream that always stalls ends the run with a message saying so`, async () => {
    const { run, endpoint } = await setup(provider, [{ stall: true }, { stall: true }], 1);
    const r = await run();
    assert.equal(r.reason, 'error');
    assert.equal(
      r.error,
      `${provider} (${endpoint}): the stream stalled: nothing arrived for 1.5 s (MEWCODE_STREAM_IDLE_MS sets the limit). Gave up after 2 attempts.`,
    );
  });

  test(`${provider}: 500, 529 and a reset connection are retried visibly; the last failure is words, not JSON`, async () => {
    const ok = await setup(
      provider,
      [{ status: 500, retryAfter: null }, { status: 529, retryAfter: null }, { reset: true }, { text: 'fine' }],
      4,
    );
    const r = await ok.run();
    assert.deepEqual([r.ok, r.answer], [true, 'fine']);
    const retries = ok.events
      .filter((e) => e.type === 'retry')
      .map((e) => (e as { notice: { why: string; attempt: number; of: number } }).notice);
    assert.deepEqual(
      retries.map((n) => [n.why, n.attempt, n.of]),
      [
        ['server error 500', 2, 5],
        ['overloaded', 3, 5],
        ['connection failed', 4, 5],
      ],
    );
    const down = await setup(
      provider,
      [
        { status: 529, retryAfter: null },
        { status: 529, retryAfter: null },
      ],
      1,
    );
    const d = await down.run();
    assert.equal(
      d.error,
      `${provider} (${down.endpoint}): the service is overloaded (529): slow down. Try again in a few minutes. Gave up after 2 attempts.`,
    );
  });

  test(`${provider}: a 200 HTML page is an error naming the URL and what came back, not an empty success`, async () => {
    const { run, endpoint } = await setup(provider, [{ html: true }]);
    const r = await run();
    assert.equal(r.reason, 'error');
    assert.ok(
      r.error?.startsWith(
        `${provider} (${endpoint}): the server answered 200 with text/html instead of an event stream`,
      ),
      r.error,
    );
    if (provider === 'openai') assert.match(r.error ?? '', /Please sign in/);
  });

  test(`${provider}: a refused connection names the URL it tried`, async () => {
    const base = await refusingUrl();
    const { run, endpoint } = await setup(provider, [], 0, provider === 'openai' ? `${base}/v1` : base);
    const r = await run();
    assert.equal(r.reason, 'error');
    assert.ok(r.error?.startsWith(`${provider} (${endpoint}): the connection failed (ECONNREFUSED)`), r.error);
  });

  test(`${provider}: token usage is summed per turn from the provider's usage fields`, async () => {
    const { run, events } = await setup(provider, [
      { calls: [{ name: 'read_file', input: { file_path: 'hello.txt' } }] },
      { text: 'ok' },
    ]);
    const r = await run();
    assert.deepEqual(r.usage, { input: 10, output: 18 });
    const usage = events.filter((e) => e.type === 'usage').map((e) => (e as { total: unknown }).total);
    assert.deepEqual(usage, [
      { input: 5, output: 9 },
      { input: 10, output: 18 },
    ]);
  });
}

test('retry backoff: exponential with jitter; 429/529 wait five times longer; Retry-After is honoured', () => {
  const e = (status: number, retryAfterMs?: number) => new ProviderError('x', 'http', true, 'x', status, retryAfterMs);
  assert.deepEqual([backoffMs(e(500), 2, 1000, () => 0), backoffMs(e(500), 2, 1000, () => 1)], [500, 1000]);
  assert.deepEqual([backoffMs(e(500), 4, 1000, () => 0), backoffMs(e(500), 4, 1000, () => 1)], [2000, 4000]);
  // Overloaded: tens of seconds by the fourth attempt, capped at a minute.
  assert.deepEqual([backoffMs(e(529), 4, 1000, () => 0), backoffMs(e(529), 4, 1000, () => 1)], [10_000, 20_000]);
  assert.equal(
    backoffMs(e(429), 9, 1000, () => 1),
    60_000,
  );
  assert.equal(
    backoffMs(e(429, 30_000), 2, 1000, () => 0),
    30_000,
  );
});
