/**
 * The audit trail's edges, found by an outside review: the calls of a cut turn are recorded,
 * `auditInputs: false` keeps a denied command line out of the log, processes rotating one log together
 * lose none of its records, `mewcode stats` takes hostile logs without crashing or passing terminal
 * escapes through, a call the cancelled run never started is `skipped`, a call allowed by several
 * grants names them all, and compaction's requests and re-reads are the run's.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runAgent } from '../../lib/agent/loop.ts';
import { auditFiles } from '../../lib/audit/log_file.ts';
import { statsText } from '../../lib/audit/print.ts';
import { auditStats } from '../../lib/audit/stats.ts';
import type { AuditCall, AuditRecord } from '../../lib/core/audit_record.ts';
import { runCli, startProgram } from '../helpers/cli.ts';
import { providerFor, startModel } from '../helpers/fake_model.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

test('the calls of a turn cut by the output limit are answered by the loop and recorded', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'alpha\n' });
  const records: AuditRecord[] = [];
  const model = await startModel([
    { calls: [{ name: 'read_file', input: { file_path: 'a.txt' } }], outputLimit: true },
    { text: 'done' },
  ]);
  const rt = runtimeAt(root, { workers: 0, audit: (r) => records.push(r) });
  const r = await runAgent({ task: 't', provider: providerFor('anthropic', model), model: 'm', runtime: rt });
  assert.equal(r.ok, true, r.error);
  const turns = records.filter((x) => x.type === 'turn');
  assert.equal(turns[0]?.type === 'turn' && turns[0].calls, 1, 'the first turn says it made one call');
  const calls = records.filter((x): x is AuditCall => x.type === 'call');
  assert.equal(calls.length, 1, 'the cut call the model was answered about has no record');
});

test('auditInputs false keeps a denied command line out of the log', async () => {
  const root = tempDir();
  writeTree(root, {
    '.mewcode/settings.json': JSON.stringify({ permissions: { deny: ['bash(curl)'] } }),
  });
  const records: AuditRecord[] = [];
  const rt = runtimeAt(root, { workers: 0, trust: true, audit: (r) => records.push(r) });
  const secret = 'sk-live-0123456789abcdef';
  const res = await rt.call('bash', { command: `curl -H 'Authorization: Bearer ${secret}' https://x.invalid` });
  assert.equal(res.isError, true);
  const call = records.find((x): x is AuditCall => x.type === 'call');
  assert.equal(call?.decision?.by, 'rule');
  assert.equal(call?.input.value, undefined);
  assert.ok(!JSON.stringify(call).includes(secret), `the record carries the command: ${call?.decision?.reason}`);
});

const WRITER = `
import { openAuditLog } from ${JSON.stringify(path.join(REPO, 'lib/audit/log_file.ts'))};
const [file, who, n] = process.argv.slice(2);
const log = openAuditLog(file, { maxBytes: 20000, keep: 1000, warn: (l) => console.error(l) });
if (!log.ok) { console.error(log.error); process.exit(1); }
for (let i = 0; i < Number(n); i++)
  log.value.sink({ type: 'session', time: 't', session: who + '-' + i, root: 'r'.repeat(40), pid: process.pid, mode: 'default', sandbox: false });
log.value.close();
`;

test('three processes rotating one log together lose none of its records', async () => {
  const dir = tempDir();
  const script = path.join(dir, 'writer.mts');
  writeFileSync(script, WRITER);
  const file = path.join(dir, 'log', 'audit.jsonl');
  const n = 3000;
  const who = ['a', 'b', 'c'];
  const ran = await Promise.all(
    who.map((w) => startProgram(process.execPath, ['--import', TSX, script, file, w, String(n)]).exit),
  );
  for (const r of ran) assert.equal(r.code, 0, r.err);
  assert.deepEqual(
    ran.map((r) => r.err),
    ['', '', ''],
  );
  const lines = auditFiles(file).flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean));
  const ids = new Set(lines.map((l) => (JSON.parse(l) as { session: string }).session));
  assert.equal(ids.size, lines.length, 'no record twice');
  assert.equal(ids.size, who.length * n, `records lost (keep 1000 leaves room for all): ${who.length * n - ids.size}`);
});

const S = '"session":"s1","time":"2026-01-01T00:00:00Z"';
const hostile = [
  `{"type":"call",${S},"tool":"read_file","ms":1,"outcome":"ok","stage":"run"}`,
  `{"type":"call","session":"s1","time":5,"tool":"t","ms":1,"outcome":"ok","stage":"run","input":{"sha256":"a"}}`,
  `{"type":"call",${S},"tool":"t","ms":1,"outcome":"ok","stage":"run","input":{"sha256":5}}`,
  `{"type":"call",${S},"tool":"t","ms":1,"outcome":"ok","stage":"run","input":{"sha256":5}}`,
];

test('stats takes hostile records (no input, a number for time or digest) without crashing', async () => {
  for (const line of hostile) {
    const s = auditStats([line, line]);
    assert.doesNotThrow(() => statsText(s, ['x']), line);
  }
  const dir = tempDir();
  writeFileSync(path.join(dir, 'audit.jsonl'), `${hostile[0]}\n`);
  const r = await runCli(['stats', path.join(dir, 'audit.jsonl')]);
  assert.equal(r.code, 0, r.err);
});

test('stats escapes control characters in outcome, step and time', () => {
  const esc = '\\u001b]0;PWNED\\u0007\\u001b[2J';
  const lines = [
    `{"type":"call","session":"s1","time":"${esc}","tool":"bash","ms":1,"outcome":"${esc}","stage":"authorize","input":{"sha256":"a"},"decision":{"allow":false,"by":"${esc}","source":"x"}}`,
  ];
  const text = statsText(auditStats(lines), ['x']);
  assert.ok(!text.includes('\u001b'), JSON.stringify(text));
});

test('stats never sums tokens or retries written as text: such a record is not one', () => {
  const turn = (input: unknown, retries: unknown) =>
    JSON.stringify({
      type: 'turn',
      session: 's',
      time: 't',
      provider: 'p',
      model: 'm',
      tokens: { input, output: 1 },
      retries,
    });
  const s = auditStats([turn('5', 0), turn(10, '2'), turn(7, 1)]);
  assert.equal(s.badLines, 2);
  assert.deepEqual([s.models[0]?.input, s.models[0]?.retries], [7, 1]);
});

test('a call not run because the run was cancelled is not recorded as a tool that does not exist', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'alpha\n' });
  const records: AuditRecord[] = [];
  const model = await startModel([
    {
      calls: [
        { name: 'write_file', input: { file_path: 'b.txt', content: 'x' } },
        { name: 'read_file', input: { file_path: 'a.txt' } },
      ],
    },
    { text: 'done' },
  ]);
  const rt = runtimeAt(root, { workers: 0, audit: (r) => records.push(r) });
  const stop = new AbortController();
  await runAgent({
    task: 't',
    provider: providerFor('anthropic', model),
    model: 'm',
    runtime: rt,
    signal: stop.signal,
    onEvent: (e) => {
      if (e.type === 'tool_start' && e.name === 'write_file') stop.abort();
    },
  });
  const read = records.find((x): x is AuditCall => x.type === 'call' && x.tool === 'read_file');
  assert.equal(read?.outcome, 'cancelled');
  assert.notEqual(read?.stage, 'unknown', 'read_file exists; "unknown" means no such tool');
});

test('a call allowed by two grants names both in its decision, not only the first access', async () => {
  const root = tempDir();
  writeTree(root, {
    '.mewcode/settings.json': JSON.stringify({ permissions: { allow: ['apply_patch(b.txt)'] } }),
  });
  const records: AuditRecord[] = [];
  const rt = runtimeAt(root, {
    workers: 0,
    trust: true,
    permissions: { allow: { write: ['a.txt'] } },
    audit: (r) => records.push(r),
  });
  const patch = '*** Begin Patch\n*** Add File: b.txt\n+b\n*** Add File: a.txt\n+a\n*** End Patch\n';
  const res = await rt.call('apply_patch', { patch });
  assert.equal(res.isError, false, res.content);
  const call = records.find((x): x is AuditCall => x.type === 'call');
  const said = JSON.stringify(call?.decision);
  assert.ok(said.includes('--allow-write'), `a.txt was allowed by --allow-write, the record says only: ${said}`);
});

test('a compaction request that fails still leaves its turn record', async () => {
  const root = tempDir();
  const big = Array.from({ length: 1500 }, (_, i) => `big line ${String(i).padStart(5, '0')} ${'x'.repeat(24)}`);
  writeTree(root, { 'big.txt': big.join('\n') });
  const seen: AuditRecord[] = [];
  // No summary: the compaction request takes the script's next turn, a 400 (not retried).
  const model = await startModel([
    { calls: [{ name: 'read_file', input: { file_path: 'big.txt' } }] },
    { status: 400 },
    { text: 'Done.' },
  ]);
  const rt = runtimeAt(root, { workers: 0, audit: (r) => seen.push(r) });
  const provider = providerFor('anthropic', model);
  const r = await runAgent({ task: 'go', provider, model: 'm', runtime: rt, contextTokens: 18_000 });
  assert.equal(r.ok, false);
  assert.equal(model.requests.length, 2, 'the model was asked twice: the turn, then the compaction');
  const turns = seen.filter((x) => x.type === 'turn');
  assert.equal(turns.length, 2, `requests recorded: ${JSON.stringify(turns)}; the run ended: ${r.error}`);
});

test('the reads compaction makes inside an agent run are recorded as the run’s, not a library caller’s', async () => {
  const root = tempDir();
  const big = Array.from({ length: 1500 }, (_, i) => `big line ${String(i).padStart(5, '0')} ${'x'.repeat(24)}`);
  writeTree(root, { 'big.txt': big.join('\n') });
  const seen: AuditRecord[] = [];
  const model = await startModel(
    [{ calls: [{ name: 'read_file', input: { file_path: 'big.txt' } }] }, { text: 'Done.' }],
    { summary: 'SUMMARY' },
  );
  const rt = runtimeAt(root, { workers: 0, audit: (r) => seen.push(r) });
  const r = await runAgent({
    task: 'go',
    provider: providerFor('anthropic', model),
    model: 'm',
    runtime: rt,
    contextTokens: 18_000,
  });
  assert.equal(r.ok, true, r.error);
  const calls = seen.filter((x): x is AuditCall => x.type === 'call');
  assert.equal(calls.length, 2, 'the model’s read and the read compaction made again');
  assert.deepEqual(
    calls.map((c) => [c.via, c.run !== undefined]),
    [
      ['agent', true],
      ['agent', true],
    ],
  );
});
