/**
 * The audit trail from the command line: the agent and `mewcode mcp` write it by default under the
 * user's data directory (0700 directory, 0600 file), `--audit-log PATH|off` moves or stops it, and
 * `mewcode stats` reads it back as a table or JSON.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { AuditCall, AuditRecord } from '../../lib/core/audit_record.ts';
import { runCli } from '../helpers/cli.ts';
import { startModel } from '../helpers/fake_model.ts';
import { connectMcp } from '../helpers/mcp_client.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const records = (file: string): AuditRecord[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditRecord);

async function agentRun(args: string[], data: string) {
  const model = await startModel([
    {
      calls: [
        { name: 'read_file', input: { file_path: 'a.txt' } },
        { name: 'read_file', input: { file_path: 'a.txt' } },
      ],
    },
    { calls: [{ name: 'write_file', input: { file_path: 'b.txt', content: 'x' } }] },
    { calls: [{ name: 'made_up', input: {} }] },
    { text: 'done' },
  ]);
  const root = tempDir();
  writeTree(root, { 'a.txt': 'alpha\n' });
  const env = { ANTHROPIC_API_KEY: 'k', XDG_DATA_HOME: data, HOME: tempDir() };
  return runCli(['--root', root, '--base-url', model.url, ...args, '-p', 'go'], { env });
}

test('the agent writes the audit trail to the data directory by default, and mewcode stats reads it', async () => {
  const data = tempDir();
  const r = await agentRun([], data);
  assert.equal(r.code, 0, r.err);
  const log = path.join(data, 'mewcode', 'audit', 'audit.jsonl');
  assert.equal(statSync(path.dirname(log)).mode & 0o777, 0o700);
  assert.equal(statSync(log).mode & 0o777, 0o600);
  const calls = records(log).filter((x): x is AuditCall => x.type === 'call');
  assert.deepEqual(calls.map((c) => [c.tool, c.outcome]).sort(), [
    ['made_up', 'unknown_tool'],
    ['read_file', 'ok'],
    ['read_file', 'ok'],
    ['write_file', 'permission_denied'],
  ]);
  assert.equal(calls.find((c) => c.tool === 'write_file')?.decision?.source, 'no prompt');
  const env = { XDG_DATA_HOME: data };
  const text = await runCli(['stats'], { env });
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /^4 calls in 1 sessions/);
  assert.match(text.out, /^read_file\s+2\s+100\.0%\s+0\.0%\s+0\s/m);
  assert.match(text.out, /^write_file\s+1\s+0\.0%\s+0\.0%\s+1\s/m);
  assert.match(text.out, /unknown tools: 1 calls \(25\.0%\): made_up ×1/);
  assert.match(text.out, /repeated identical calls: 1 \(/);
  assert.match(text.out, /^prompt\s+no prompt\s+1$/m);
  assert.match(text.out, /^anthropic\/claude-[^\s]+\s+4\s/m);
  const json = await runCli(['stats', '--json', log], { env: {} });
  assert.equal(json.code, 0, json.err);
  const stats = JSON.parse(json.out);
  assert.deepEqual(stats.files, [log]);
  assert.equal(stats.calls, 4);
  assert.equal(stats.unknown.calls, 1);
});

test('--audit-log PATH writes there, off writes nothing, and a path that cannot be opened is refused before the run', async () => {
  const data = tempDir();
  const file = path.join(tempDir(), 'logs', 'mine.jsonl');
  const named = await agentRun(['--audit-log', file, '--audit-inputs'], data);
  assert.equal(named.code, 0, named.err);
  const calls = records(file).filter((x): x is AuditCall => x.type === 'call');
  assert.deepEqual(calls.find((c) => c.tool === 'write_file')?.input.value, { file_path: 'b.txt', content: 'x' });
  assert.equal(existsSync(path.join(data, 'mewcode', 'audit')), false);
  const off = await agentRun(['--audit-log', 'off'], data);
  assert.equal(off.code, 0, off.err);
  assert.equal(existsSync(path.join(data, 'mewcode', 'audit')), false);
  const blocker = path.join(tempDir(), 'a-file');
  writeFileSync(blocker, '');
  const bad = await agentRun(['--audit-log', path.join(blocker, 'log.jsonl')], data);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /the audit log's directory .*a-file cannot be created \((EEXIST|ENOTDIR)\)/);
});

test('mewcode stats: no log is a usage error; lines that are not records are counted, not fatal', async () => {
  const data = tempDir();
  const none = await runCli(['stats'], { env: { XDG_DATA_HOME: data } });
  assert.equal(none.code, 2);
  assert.match(none.err, /There is no audit log at .*audit\.jsonl \(the agent and `mewcode mcp` write it/);
  const file = path.join(tempDir(), 'log.jsonl');
  const call = {
    type: 'call',
    time: '2026-01-01T00:00:00.000Z',
    session: 's',
    via: 'mcp',
    tool: 'grep',
    input: { sha256: 'a'.repeat(64), bytes: 2 },
    stage: 'run',
    outcome: 'ok',
    ms: 5,
    bytesOut: 1,
  };
  writeFileSync(
    file,
    `${JSON.stringify(call)}\nnot json\n{"type":"call"}\n${JSON.stringify({ ...call, ms: 50 })}\n{"half`,
  );
  const r = await runCli(['stats', file, '--json'], { env: {} });
  assert.equal(r.code, 0, r.err);
  const s = JSON.parse(r.out);
  assert.deepEqual([s.records, s.badLines, s.calls], [2, 3, 2]);
  assert.deepEqual([s.tools[0].p50Ms, s.tools[0].maxMs], [5, 50]);
});

test('mewcode mcp records its calls as the MCP client’s', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'alpha\n' });
  const file = path.join(tempDir(), 'mcp.jsonl');
  const { client } = await connectMcp({ root, flags: ['--audit-log', file] });
  const r = await client.callTool({ name: 'grep', arguments: { pattern: 'alpha' } });
  assert.equal(r.isError, false);
  await client.close();
  const calls = records(file).filter((x): x is AuditCall => x.type === 'call');
  assert.deepEqual(
    calls.map((c) => [c.via, c.tool, c.outcome]),
    [['mcp', 'grep', 'ok']],
  );
  assert.equal(records(file)[0]?.type, 'session');
});
