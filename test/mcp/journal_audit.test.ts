/**
 * The MCP server's own journal tools, `history` and `rewind`, never reach the runtime's call path:
 * they are recorded in the audit trail all the same (rewind is the server's one destructive call the
 * trail would otherwise miss).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { AuditCall, AuditRecord } from '../../lib/core/audit_record.ts';
import { connectMcp } from '../helpers/mcp_client.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

test('mewcode mcp records the rewind and history calls its client makes', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'alpha\n' });
  const file = path.join(tempDir(), 'mcp.jsonl');
  const { client } = await connectMcp({ root, flags: ['--audit-log', file, '--allow-write=.'] });
  await client.callTool({ name: 'read_file', arguments: { file_path: 'a.txt' } });
  const w = await client.callTool({ name: 'write_file', arguments: { file_path: 'a.txt', content: 'beta\n' } });
  assert.equal(w.isError, false, JSON.stringify(w.content));
  const h = await client.callTool({ name: 'history', arguments: {} });
  assert.equal(h.isError, false, JSON.stringify(h.content));
  const u = await client.callTool({ name: 'rewind', arguments: { action: 'undo' } });
  assert.equal(u.isError, false, JSON.stringify(u.content));
  await client.close();
  assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'alpha\n', 'the undo took the write back');
  const calls = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditRecord)
    .filter((x): x is AuditCall => x.type === 'call');
  assert.deepEqual(
    calls.map((c) => [c.via, c.tool]),
    [
      ['mcp', 'read_file'],
      ['mcp', 'write_file'],
      ['mcp', 'history'],
      ['mcp', 'rewind'],
    ],
  );
});
