import assert from 'node:assert/strict';
import { chmodSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runAgent } from '../../lib/agent/loop.ts';
import { auditFiles, openAuditLog } from '../../lib/audit/log_file.ts';
import { auditStats } from '../../lib/audit/stats.ts';
import type { AuditCall, AuditRecord, AuditTurn } from '../../lib/core/audit_record.ts';
import { createRuntime } from '../../lib/runtime/runtime.ts';
import { providerFor, startModel } from '../helpers/fake_model.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const readLog = (file: string): AuditRecord[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditRecord);

/**
 * A project whose settings deny writes to secret.txt, ask before `rm`, and run two PreToolUse hooks on
 * bash: one that passes, one that blocks `curl`.
 */
function project() {
  const root = tempDir();
  writeTree(root, {
    'a.txt': 'alpha\n',
    'secret.txt': 'keep\n',
    '.mewcode/settings.json': JSON.stringify({
      permissions: { deny: ['write_file(secret.txt)'], ask: ['bash(rm)'], allow: ['bash(echo)', 'bash(curl)'] },
      hooks: {
        PreToolUse: [
          { matcher: '^bash$', command: 'true' },
          { matcher: '^bash$', command: 'if grep -q curl; then echo no network >&2; exit 2; fi' },
        ],
      },
    }),
  });
  return root;
}

/** What `mewcode stats` makes of that run's log. */
function checkStats(logFile: string, wire: string) {
  const stats = auditStats(readFileSync(logFile, 'utf8').split('\n'));
  assert.equal(stats.repeats.calls, 1);
  assert.deepEqual(stats.unknown.names, [{ name: 'no_such_tool', count: 1 }]);
  const read = stats.tools.find((t) => t.tool === 'read_file');
  assert.deepEqual([read?.calls, read?.ok, read?.parseFailures], [4, 2, 2]);
  assert.deepEqual(
    stats.denials.map((d) => [d.by, d.source, d.count]),
    [
      ['hook', 'if grep -q curl; then echo no network >&2; exit 2; fi', 1],
      ['rule', 'project deny write_file(secret.txt)', 1],
    ],
  );
  assert.deepEqual(
    stats.models.map((m) => [m.provider, m.requests]),
    [[wire, 10]],
  );
}

for (const wire of ['anthropic', 'openai'] as const) {
  test(`${wire}: a scripted agent run leaves one record per call and per model request, each saying who decided`, async () => {
    const root = project();
    const logFile = path.join(tempDir(), 'audit', 'audit.jsonl');
    const log = openAuditLog(logFile);
    assert.ok(log.ok);
    const asked: string[] = [];
    const model = await startModel([
      {
        calls: [
          { name: 'read_file', input: { file_path: 'a.txt' } },
          { name: 'grep', input: { pattern: 'alpha' } },
        ],
      },
      { calls: [{ name: 'write_file', input: { file_path: 'secret.txt', content: 'gone\n' } }] },
      { calls: [{ name: 'bash', input: { command: 'echo hi' } }] },
      { calls: [{ name: 'bash', input: { command: 'rm -f gone.txt' } }] },
      { calls: [{ name: 'bash', input: { command: 'curl http://example.invalid' } }] },
      { calls: [{ name: 'no_such_tool', input: {} }] },
      { calls: [{ name: 'read_file', input: {}, raw: '{"file_path": ' }] },
      { calls: [{ name: 'read_file', input: { file_path: 'a.txt', limit: -1 } }] },
      { calls: [{ name: 'read_file', input: { file_path: 'a.txt' } }] },
      { text: 'done' },
    ]);
    const rt = runtimeAt(root, {
      workers: 0,
      trust: true,
      prompt: {
        ask: async (r) => {
          asked.push(r.asks.map((a) => a.subject).join(' '));
          return 'once';
        },
      },
      audit: log.value.sink,
    });
    const r = await runAgent({
      task: 'audit me',
      provider: providerFor(wire, model),
      model: 'test-model',
      runtime: rt,
    });
    log.value.close();
    assert.equal(r.ok, true, r.error);
    assert.deepEqual(asked, ['rm -f gone.txt']);
    assert.equal(statSync(logFile).mode & 0o777, 0o600);
    const records = readLog(logFile);
    const session = records[0];
    assert.equal(session?.type, 'session');
    assert.ok(records.every((x) => x.session === rt.session));
    const calls = records.filter((x): x is AuditCall => x.type === 'call');
    const turns = records.filter((x): x is AuditTurn => x.type === 'turn');
    assert.equal(turns.length, 10);
    assert.ok(
      turns.every((t) => t.provider === wire && t.model === 'test-model' && t.depth === 0 && t.run === turns[0]?.run),
    );
    assert.ok(
      turns.every((t) => t.tokens.input > 0 && t.tokens.output > 0),
      JSON.stringify(turns.map((t) => t.tokens)),
    );
    assert.deepEqual(
      turns.map((t) => t.calls),
      [2, 1, 1, 1, 1, 1, 1, 1, 1, 0],
    );
    // The first turn's two reads ran together: their records come in the order they ended.
    calls.splice(0, 2, ...calls.slice(0, 2).sort((x, y) => y.tool.localeCompare(x.tool)));
    const summary = calls.map((c) => [c.tool, c.stage, c.outcome, c.decision?.by, c.decision?.source]);
    assert.deepEqual(summary, [
      ['read_file', 'run', 'ok', 'default', 'default read'],
      ['grep', 'run', 'ok', 'default', 'default read'],
      ['write_file', 'authorize', 'permission_denied', 'rule', 'project deny write_file(secret.txt)'],
      ['bash', 'run', 'ok', 'rule', 'project allow bash(echo); default read'],
      ['bash', 'run', 'ok', 'prompt', 'answered once'],
      ['bash', 'authorize', 'permission_denied', 'hook', 'if grep -q curl; then echo no network >&2; exit 2; fi'],
      ['no_such_tool', 'unknown', 'unknown_tool', undefined, undefined],
      ['read_file', 'parse', 'invalid_args', undefined, undefined],
      ['read_file', 'parse', 'invalid_args', undefined, undefined],
      ['read_file', 'run', 'ok', 'default', 'default read'],
    ]);
    // The hooks that ran are named whichever step decided.
    assert.deepEqual(calls[3]?.decision?.hooks, ['true', 'if grep -q curl; then echo no network >&2; exit 2; fi']);
    assert.equal(calls[0]?.decision?.hooks, undefined);
    for (const c of calls) {
      assert.equal(c.via, 'agent');
      assert.equal(c.run, turns[0]?.run);
      assert.match(c.input.sha256, /^[0-9a-f]{64}$/);
      assert.ok(c.input.bytes > 0);
      assert.equal(c.input.value, undefined, 'arguments are not kept unless asked');
      assert.ok(c.ms >= 0 && Number.isFinite(c.ms));
      assert.ok(typeof c.callId === 'string' && c.callId !== '');
    }
    assert.equal(calls[3]?.exitCode, 0);
    assert.equal(calls[3]?.sandboxed, false);
    assert.ok(calls[0] && calls[0].bytesOut > 0);
    // The same read twice in the run, with the same arguments: one repeat.
    assert.equal(calls[0]?.input.sha256, calls[9]?.input.sha256);
    checkStats(logFile, wire);
  });
}

test('auditInputs keeps the arguments; a refusal before the policy is the gate’s; a sink that throws fails nothing', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'alpha\n' });
  const seen: AuditRecord[] = [];
  const rt = runtimeAt(root, {
    workers: 0,
    auditInputs: true,
    audit: [
      () => {
        throw new Error('a broken sink');
      },
      (r) => seen.push(r),
    ],
  });
  assert.equal((await rt.call('read_file', { file_path: 'a.txt' })).isError, false);
  assert.equal((await rt.call('read_file', { file_path: '../outside.txt' })).code, 'outside_root');
  const calls = seen.filter((x): x is AuditCall => x.type === 'call');
  assert.deepEqual(calls[0]?.input.value, { file_path: 'a.txt' });
  assert.equal(calls[0]?.via, 'library');
  assert.equal(calls[1]?.stage, 'authorize');
  assert.deepEqual(
    [calls[1]?.decision?.allow, calls[1]?.decision?.by, calls[1]?.decision?.source],
    [false, 'gate', 'outside_root'],
  );
});

test('the log rotates past its size, keeps its number of files, and two writers on one log lose no line', () => {
  const dir = tempDir();
  const file = path.join(dir, 'audit.jsonl');
  const a = openAuditLog(file, { maxBytes: 2000, keep: 3 });
  const b = openAuditLog(file, { maxBytes: 2000, keep: 3 });
  assert.ok(a.ok && b.ok);
  const record = (i: number): AuditRecord => ({
    type: 'session',
    time: new Date(0).toISOString(),
    session: `s${String(i).padStart(4, '0')}`,
    root: '/x'.repeat(20),
    pid: i,
    mode: 'default',
    sandbox: false,
  });
  for (let i = 0; i < 60; i++) (i % 2 ? b : a).value.sink(record(i));
  a.value.close();
  b.value.close();
  const files = auditFiles(file);
  assert.deepEqual(
    files.map((f) => path.basename(f)),
    ['audit.jsonl.3', 'audit.jsonl.2', 'audit.jsonl.1', 'audit.jsonl'],
  );
  const lines = files.flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean));
  for (const f of files) assert.ok(statSync(f).size <= 2000, `${f} is ${statSync(f).size} bytes`);
  // Every line whole; the newest ones kept, in order, none lost since the oldest kept one.
  const ids = lines.map((l) => Number((JSON.parse(l) as { pid: number }).pid));
  const first = ids[0] ?? 0;
  assert.deepEqual(
    ids,
    Array.from({ length: 60 - first }, (_, i) => first + i),
  );
});

test('the default place must be the user’s own: a directory others may write is refused, a symbolic link is not followed', () => {
  const home = tempDir();
  const dir = path.join(home, 'audit');
  const open = openAuditLog(path.join(dir, 'audit.jsonl'), { own: true });
  assert.ok(open.ok);
  open.value.close();
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  const shared = tempDir();
  chmodSync(shared, 0o777);
  const refused = openAuditLog(path.join(shared, 'audit.jsonl'), { own: true });
  assert.equal(refused.ok, false);
  assert.match(refused.ok ? '' : refused.error, /writable by others/);
  const target = path.join(tempDir(), 'elsewhere');
  symlinkSync(target, path.join(dir, 'linked.jsonl'));
  const linked = openAuditLog(path.join(dir, 'linked.jsonl'), { own: true });
  assert.equal(linked.ok, false);
  assert.match(linked.ok ? '' : linked.error, /ELOOP/);
});

test('a sub-agent’s requests and calls carry its own run and depth; the agent call is the parent’s', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'alpha\n' });
  const seen: AuditRecord[] = [];
  const model = await startModel([
    { calls: [{ name: 'agent', input: { prompt: 'read a.txt', read_only: true } }] },
    { calls: [{ name: 'read_file', input: { file_path: 'a.txt' } }] },
    { text: 'it says alpha' },
    { text: 'done' },
  ]);
  const rt = runtimeAt(root, { workers: 0, audit: (r) => seen.push(r) });
  const r = await runAgent({ task: 'go', provider: providerFor('anthropic', model), model: 'm', runtime: rt });
  assert.equal(r.ok, true, r.error);
  const turns = seen.filter((x): x is AuditTurn => x.type === 'turn');
  const calls = seen.filter((x): x is AuditCall => x.type === 'call');
  assert.deepEqual(
    turns.map((t) => [t.depth, t.turn]),
    [
      [0, 1],
      [1, 1],
      [1, 2],
      [0, 2],
    ],
  );
  const [top, sub] = [turns[0]?.run, turns[1]?.run];
  assert.notEqual(top, sub);
  assert.deepEqual(
    calls.map((c) => [c.tool, c.run, c.stage, c.outcome]),
    [
      ['read_file', sub, 'run', 'ok'],
      ['agent', top, 'run', 'ok'],
    ],
  );
});

test('an audit option that is not a sink is refused when the runtime is made', () => {
  for (const audit of ['log.jsonl', { write: 1 }, [() => {}, 'x']]) {
    const made = createRuntime({ root: tempDir(), home: null, workers: 0, audit: audit as never });
    assert.equal(made.ok, false);
    assert.match(made.ok ? '' : made.error, /^audit must be a function given each record, or a list of them, not /);
  }
});

test('the request that compacts the conversation is recorded as such, with its tokens', async () => {
  const root = tempDir();
  // About 20,000 tokens by the loop's estimate: more than the budget below holds.
  const big = Array.from({ length: 1500 }, (_, i) => `big line ${String(i).padStart(5, '0')} ${'x'.repeat(24)}`);
  writeTree(root, { 'big.txt': big.join('\n') });
  const seen: AuditRecord[] = [];
  const model = await startModel(
    [{ calls: [{ name: 'read_file', input: { file_path: 'big.txt' } }] }, { text: 'Done.' }],
    {
      summary: 'SUMMARY',
    },
  );
  const rt = runtimeAt(root, { workers: 0, audit: (r) => seen.push(r) });
  const provider = providerFor('anthropic', model);
  const r = await runAgent({ task: 'go', provider, model: 'm', runtime: rt, contextTokens: 18_000 });
  assert.equal(r.ok, true, r.error);
  const turns = seen.filter((x): x is AuditTurn => x.type === 'turn');
  assert.deepEqual(
    turns.map((t) => [t.turn, t.purpose ?? 'turn', t.stop]),
    [
      [1, 'turn', 'tool_use'],
      [2, 'compact', 'compacted'],
      [2, 'turn', 'end_turn'],
    ],
  );
  assert.ok((turns[1]?.tokens.input ?? 0) > 0);
});
