/**
 * A deferred MCP tool found with tool_search whose server then goes away (closed and unregistered)
 * before the model calls it: the call says the server is gone, and later requests no longer offer it.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { runAgent } from '../../lib/agent/loop.ts';
import type { AuditCall, AuditRecord } from '../../lib/core/audit_record.ts';
import { connectMcpServer } from '../../lib/mcp/client.ts';
import { providerFor, startModel } from '../helpers/fake_model.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';

const CREATE = 'mcp__devhub__github_create_issue';

test('a found tool whose server went away is no longer offered, and its call says the server is gone', async () => {
  const records: AuditRecord[] = [];
  const rt = runtimeAt(tempDir(), { workers: 0, audit: (r) => records.push(r) });
  const c = await connectMcpServer(rt, 'devhub', {
    command: process.execPath,
    args: ['--import', TSX, path.join(REPO, 'test/fixtures/mcp_many.ts'), 'devhub'],
    trustReadOnlyHints: true,
  });
  const model = await startModel([
    { calls: [{ name: 'tool_search', input: { query: 'github_create_issue', max_results: 1 } }] },
    { calls: [{ name: CREATE, input: { owner: 'o', repo: 'r', title: 't' } }] },
    { text: 'done' },
  ]);
  const r = await runAgent({
    task: 'go',
    provider: providerFor('anthropic', model),
    model: 'm',
    runtime: rt,
    onEvent: (e) => {
      if (e.type === 'tool_end' && e.name === 'tool_search') void c.close();
    },
  });
  const sent = model.requests.map((q) => ((q.body.tools ?? []) as { name: string }[]).map((t) => t.name));
  const call = records.find((x): x is AuditCall => x.type === 'call' && x.tool === CREATE);
  const last = r.transcript.flatMap((m) => (m.role === 'tool_results' ? m.results : [])).at(-1);
  assert.deepEqual([call?.stage, call?.outcome], ['unknown', 'unknown_tool']);
  assert.match(last?.content ?? '', /is no longer available: its MCP server is not connected any more/);
  assert.ok(!sent[2]?.includes(CREATE), 'the third request still offers the tool of a server that is gone');
});
