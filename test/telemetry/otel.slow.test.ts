import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runAgent } from '../../lib/agent/loop.ts';
import { makeProvider } from '../../lib/llm/providers.ts';
import type { Runtime } from '../../lib/runtime/runtime.ts';
import { openTelemetry } from '../../lib/telemetry/open_telemetry.ts';
import { CLEAN_ENV, runCli, runProgram } from '../helpers/cli.ts';
import { type FakeModel, startModel } from '../helpers/fake_model.ts';
import { connectMcp, resultText } from '../helpers/mcp_client.ts';
import {
  type OtlpReceiver,
  type ReceivedPoint,
  type ReceivedSpan,
  startOtlpReceiver,
} from '../helpers/otlp_receiver.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { waitFor } from '../helpers/wait.ts';

// The retried request waits a millisecond, not a second.
process.env.MEWCODE_RETRY_BASE_MS = '1';

/** An official SDK's provider at the fake model, allowed one retry. */
function retryingProvider(wire: 'anthropic' | 'openai', model: FakeModel) {
  const made = makeProvider({
    provider: wire,
    apiKey: 'test-key',
    baseURL: wire === 'openai' ? `${model.url}/v1` : model.url,
    maxRetries: 1,
  });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}

// What no span or metric may carry: a file's content, a call's arguments.
const CONTENT = 'alpha-content-7f3e';
const WRITTEN = 'written-content-9c1d';
const FILE = 'notes/private-name.txt';

function project(): string {
  const root = tempDir();
  writeTree(root, {
    [FILE]: `${CONTENT}\n`,
    '.mewcode/settings.json': JSON.stringify({ permissions: { deny: ['write_file(secret.txt)'] } }),
  });
  return root;
}

const ERROR = 2; // OTLP status code
const CLIENT = 3; // OTLP span kind
const INTERNAL = 1;

/** The sum of the points of `metric` whose attributes include `attrs` (a histogram's count with `count`). */
function total(points: ReceivedPoint[], metric: string, attrs: Record<string, unknown> = {}, count = false): number {
  return points
    .filter((p) => p.metric === metric && Object.entries(attrs).every(([k, v]) => p.attributes[k] === v))
    .reduce((n, p) => n + (count ? (p.count ?? 0) : p.value), 0);
}

/** Four calls outside any agent run: allowed, denied, an unknown tool, bad arguments. */
async function libraryCalls(rt: Runtime) {
  assert.equal((await rt.call('read_file', { file_path: FILE })).isError, false);
  assert.equal((await rt.call('write_file', { file_path: 'secret.txt', content: WRITTEN })).code, 'permission_denied');
  assert.equal((await rt.call('no_such_tool', { x: CONTENT })).code, 'unknown_tool');
  assert.equal((await rt.call('read_file', { file_path: FILE, limit: -1 })).code, 'invalid_args');
}

function checkLibrarySpans(spans: ReceivedSpan[]) {
  const roots = spans.filter((s) => s.attributes['mewcode.call.via'] === 'library');
  assert.deepEqual(
    roots.map((s) => [s.name, s.status.code, s.attributes['error.type'], s.attributes['mewcode.call.stage']]),
    [
      ['execute_tool read_file', 0, undefined, 'run'],
      ['execute_tool write_file', ERROR, 'permission_denied', 'authorize'],
      ['execute_tool', ERROR, 'unknown_tool', 'unknown'],
      ['execute_tool read_file', ERROR, 'invalid_args', 'parse'],
    ],
  );
  // Each a trace of its own, with no parent.
  assert.equal(new Set(roots.map((s) => s.traceId)).size, 4);
  assert.ok(roots.every((s) => s.parentSpanId === '' && s.kind === INTERNAL));
  assert.equal(roots[1]?.attributes['mewcode.policy.step'], 'rule');
  assert.equal(roots[1]?.attributes['mewcode.policy.allow'], false);
  assert.equal(roots[2]?.attributes['gen_ai.tool.name'], 'no_such_tool');
  assert.ok(roots.every((s) => s.end >= s.start && s.resource['service.name'] === 'mewcode-test'));
}

function checkRunSpans(spans: ReceivedSpan[], wire: string) {
  const run = spans.find((s) => s.name === 'invoke_agent mewcode');
  assert.ok(run, spans.map((s) => s.name).join(', '));
  assert.equal(run.parentSpanId, '');
  const inRun = spans.filter((s) => s.traceId === run.traceId && s !== run);
  assert.ok(inRun.every((s) => s.parentSpanId === run.spanId));
  const chats = inRun.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
  const calls = inRun.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
  assert.deepEqual(
    chats.map((s) => [s.name, s.kind, s.attributes['gen_ai.provider.name'], s.attributes['mewcode.turn']]),
    [1, 2, 3, 4].map((turn) => ['chat test-model', CLIENT, wire, turn]),
  );
  assert.ok(chats.every((s) => (s.attributes['gen_ai.usage.input_tokens'] as number) > 0));
  assert.equal(chats[0]?.attributes['mewcode.model.retries'], 1);
  assert.deepEqual(chats[3]?.attributes['gen_ai.response.finish_reasons'], [wire === 'openai' ? 'stop' : 'end_turn']);
  assert.deepEqual(
    calls.map((s) => [s.name, s.attributes['mewcode.call.outcome'], s.status.code]),
    [
      ['execute_tool read_file', 'ok', 0],
      ['execute_tool write_file', 'permission_denied', ERROR],
      ['execute_tool read_file', 'invalid_args', ERROR],
    ],
  );
  assert.ok(calls.every((s) => typeof s.attributes['gen_ai.tool.call.id'] === 'string'));
  assert.ok(calls.every((s) => s.attributes['gen_ai.conversation.id'] === run.attributes['gen_ai.conversation.id']));
  // The run spans its requests and calls; its tokens are theirs summed.
  assert.equal(run.start, Math.min(...inRun.map((s) => s.start)));
  assert.equal(run.end, Math.max(...inRun.map((s) => s.end)));
  const sum = chats.reduce((n, s) => n + (s.attributes['gen_ai.usage.input_tokens'] as number), 0);
  assert.equal(run.attributes['gen_ai.usage.input_tokens'], sum);
}

function checkMetrics(points: ReceivedPoint[], wire: string) {
  const calls = (tool: string, stage: string, outcome: string) =>
    total(points, 'mewcode.tool.calls', {
      'gen_ai.tool.name': tool,
      'mewcode.call.stage': stage,
      'mewcode.call.outcome': outcome,
    });
  assert.equal(calls('read_file', 'run', 'ok'), 2);
  assert.equal(calls('write_file', 'authorize', 'permission_denied'), 2);
  assert.equal(calls('_OTHER', 'unknown', 'unknown_tool'), 1);
  assert.equal(calls('read_file', 'parse', 'invalid_args'), 2);
  assert.equal(total(points, 'mewcode.policy.denials', { 'mewcode.policy.step': 'rule' }), 2);
  assert.equal(total(points, 'mewcode.tool.parse_failures', { 'gen_ai.tool.name': 'read_file' }), 2);
  assert.equal(total(points, 'mewcode.tool.unknown'), 1);
  assert.equal(total(points, 'mewcode.tool.duration', {}, true), 7);
  const model = { 'gen_ai.provider.name': wire, 'gen_ai.request.model': 'test-model' };
  assert.equal(total(points, 'mewcode.model.retries', model), 1);
  assert.equal(total(points, 'gen_ai.client.operation.duration', model, true), 4);
  assert.equal(total(points, 'gen_ai.client.token.usage', { ...model, 'gen_ai.token.type': 'input' }, true), 4);
  assert.ok(total(points, 'gen_ai.client.token.usage', { ...model, 'gen_ai.token.type': 'output' }) > 0);
  assert.equal(points.find((p) => p.metric === 'gen_ai.client.operation.duration')?.unit, 's');
}

/** Nothing the receiver got holds a file's content or a call's arguments. */
function checkNothingPrivate(receiver: OtlpReceiver) {
  const sent = JSON.stringify(receiver.requests.map((r) => r.body));
  for (const secret of [CONTENT, WRITTEN, FILE]) assert.ok(!sent.includes(secret), `${secret} was exported`);
}

for (const wire of ['anthropic', 'openai'] as const) {
  test(`${wire}: library calls and an agent run become spans and metrics at a loopback OTLP receiver`, async () => {
    const receiver = await startOtlpReceiver();
    const otel = await openTelemetry({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`,
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20t0ken',
        OTEL_SERVICE_NAME: 'mewcode-test',
      },
    });
    assert.ok(otel);
    // The records keep the arguments here: the sink must still leave them out.
    const rt = runtimeAt(project(), { workers: 0, trust: true, auditInputs: true, audit: otel.sink });
    await libraryCalls(rt);
    const model = await startModel([
      { status: 429, retryAfter: '0' },
      { calls: [{ name: 'read_file', input: { file_path: FILE } }] },
      { calls: [{ name: 'write_file', input: { file_path: 'secret.txt', content: WRITTEN } }] },
      { calls: [{ name: 'read_file', input: { file_path: FILE, limit: -1 } }] },
      { text: 'done' },
    ]);
    const r = await runAgent({
      task: 'read it',
      provider: retryingProvider(wire, model),
      model: 'test-model',
      runtime: rt,
    });
    assert.equal(r.ok, true, r.error);
    await otel.shutdown();
    const spans = receiver.spans();
    checkLibrarySpans(spans);
    checkRunSpans(spans, wire);
    checkMetrics(receiver.points(), wire);
    checkNothingPrivate(receiver);
    assert.deepEqual([...new Set(receiver.requests.map((q) => q.path))].sort(), ['/v1/metrics', '/v1/traces']);
    assert.ok(receiver.requests.every((q) => q.headers.authorization === 'Bearer t0ken'));
  });
}

test('a program’s own tracer and meter: the sink uses them; no endpoint, no telemetry; OTEL_SDK_DISABLED wins', async () => {
  assert.equal(await openTelemetry({ env: {} }), undefined);
  assert.equal(
    await openTelemetry({ env: { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'x' } }),
    undefined,
  );
  assert.equal(
    await openTelemetry({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'x', OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' },
    }),
    undefined,
  );
  const receiver = await startOtlpReceiver();
  const { TracerProvider, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const provider = new TracerProvider({
    spanProcessors: [
      new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` }) }),
    ],
  });
  const otel = await openTelemetry({ tracer: provider.getTracer('embedder') });
  assert.ok(otel);
  const rt = runtimeAt(project(), { workers: 0, audit: otel.sink });
  await rt.call('read_file', { file_path: FILE });
  await otel.shutdown();
  await provider.shutdown();
  assert.deepEqual(
    receiver.spans().map((s) => [s.name, s.scope]),
    [['execute_tool read_file', 'embedder']],
  );
  assert.equal(receiver.points().length, 0);
});

/** node's arguments that run the CLI from source, with a hook that logs every module it resolves (to MODULE_LOG). */
const FROM_SOURCE = [
  '--import',
  TSX,
  '--import',
  path.join(REPO, 'test/fixtures/module_log.mjs'),
  path.join(REPO, 'mewcode.ts'),
];

async function agentFromSource(env: Record<string, string>): Promise<{ loaded: string[]; code: number | null }> {
  const log = path.join(tempDir(), 'modules.log');
  const model = await startModel([{ calls: [{ name: 'read_file', input: { file_path: FILE } }] }, { text: 'done' }]);
  const r = await runProgram(
    process.execPath,
    [...FROM_SOURCE, '--root', project(), '--audit-log', 'off', ...model.openaiFlags, '-p', 'read it'],
    { env: { ...CLEAN_ENV, MEWCODE_FROM_SOURCE: '1', MODULE_LOG: log, ...env } },
  );
  assert.equal(r.code, 0, r.err);
  return { loaded: existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [], code: r.code };
}

test('without an endpoint (or with OTEL_SDK_DISABLED) a run loads no OpenTelemetry module and sends nothing', async () => {
  const receiver = await startOtlpReceiver();
  const otel = (files: string[]) => files.filter((f) => f.includes('/@opentelemetry/'));
  const plain = await agentFromSource({});
  assert.ok(
    plain.loaded.some((f) => f.endsWith('/lib/agent/loop.ts')),
    'the hook logged the run’s modules',
  );
  assert.deepEqual(otel(plain.loaded), []);
  const disabled = await agentFromSource({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: 'true' });
  assert.deepEqual(otel(disabled.loaded), []);
  assert.equal(receiver.requests.length, 0);
  // The proof that the log would show them: with the endpoint, the SDK is loaded and spans are sent.
  const on = await agentFromSource({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  assert.ok(otel(on.loaded).some((f) => f.includes('/@opentelemetry/sdk-trace/')));
  assert.ok(receiver.spans().length > 0);
});

test('mewcode -p: its spans and metrics reach the receiver before the process exits', async () => {
  const receiver = await startOtlpReceiver();
  const model = await startModel([
    {
      calls: [
        { name: 'read_file', input: { file_path: FILE } },
        { name: 'no_such_tool', input: {} },
      ],
    },
    { text: 'done' },
  ]);
  const r = await runCli(
    ['--root', project(), '--audit-log', 'off', ...model.openaiFlags, '--model', 'm1', '-p', 'read it'],
    {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_METRIC_EXPORT_INTERVAL: '600000',
      },
    },
  );
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /OpenTelemetry: OTEL_EXPORTER_OTLP_PROTOCOL=http\/protobuf is not supported/);
  const spans = receiver.spans();
  assert.deepEqual(spans.map((s) => s.name).sort(), [
    'chat m1',
    'chat m1',
    'execute_tool',
    'execute_tool read_file',
    'invoke_agent mewcode',
  ]);
  assert.equal(new Set(spans.map((s) => s.traceId)).size, 1);
  assert.equal(total(receiver.points(), 'mewcode.tool.unknown'), 1);
  assert.equal(total(receiver.points(), 'mewcode.tool.calls'), 2);
  checkNothingPrivate(receiver);
});

test('mewcode mcp: each call a span of its own, sent by the time the server has gone', async () => {
  const receiver = await startOtlpReceiver();
  const { client } = await connectMcp({ root: project(), env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
  const read = await client.callTool({ name: 'read_file', arguments: { file_path: FILE } });
  assert.match(resultText(read), new RegExp(CONTENT));
  await client.callTool({ name: 'read_file', arguments: {} });
  await client.close();
  await waitFor(() => receiver.spans().length >= 2, 'the server’s spans');
  const spans = receiver.spans();
  assert.deepEqual(
    spans.map((s) => [s.name, s.attributes['mewcode.call.via'], s.attributes['mewcode.call.outcome'], s.parentSpanId]),
    [
      ['execute_tool read_file', 'mcp', 'ok', ''],
      ['execute_tool read_file', 'mcp', 'invalid_args', ''],
    ],
  );
  await waitFor(() => total(receiver.points(), 'mewcode.tool.calls') === 2, 'the server’s metrics');
  checkNothingPrivate(receiver);
});
