/**
 * Tools found with tool_search are bounded: a model that searches widely never sends OpenAI more than
 * the 128 tools a request may carry, the very limit deferral is there to respect.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import { runAgent } from '../../lib/agent/loop.ts';
import { connectMcpServer } from '../../lib/mcp/client.ts';
import { providerFor, type ScriptTurn, startModel } from '../helpers/fake_model.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';

const closers: (() => Promise<void>)[] = [];
after(() => Promise.all(closers.map((c) => c())));

test('a run that searches widely never sends more tools than the OpenAI wire takes (128)', async () => {
  const rt = runtimeAt(tempDir(), { workers: 0, permissions: { allow: { run: true } } });
  const c = await connectMcpServer(rt, 'devhub', {
    command: process.execPath,
    args: ['--import', TSX, path.join(REPO, 'test/fixtures/mcp_many.ts'), 'devhub'],
    trustReadOnlyHints: true,
  });
  closers.push(() => c.close());
  const queries = [
    'github',
    'jira',
    'gitlab',
    'linear',
    'confluence',
    'buildkite',
    'notion',
    'sentry',
    'gmail',
    'drive',
  ];
  const script: ScriptTurn[] = [
    ...queries.map((q) => ({ calls: [{ name: 'tool_search', input: { query: q, max_results: 20 } }] })),
    { text: 'done' },
  ];
  const model = await startModel(script);
  const r = await runAgent({ task: 'go', provider: providerFor('openai', model), model: 'test-model', runtime: rt });
  const counts = model.requests.map((q) => ((q.body.tools ?? []) as unknown[]).length);
  assert.equal(r.ok, true, r.error);
  assert.ok(Math.max(...counts) <= 128, `tools per request: ${counts.join(', ')}`);
});
