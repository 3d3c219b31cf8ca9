// Background jobs seen from outside the runtime: the agent loop tells the model, on both wires, when a
// job it started ends; the MCP server tells its client with a log notification; the end of a run stops
// the jobs it started; a disconnecting MCP client leaves no job running.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { type AgentEvent, runAgent } from '../../lib/agent/loop.ts';
import { makeProvider } from '../../lib/llm/providers.ts';
import { startModel } from '../helpers/fake_model.ts';
import { mcpClient } from '../helpers/mcp_client.ts';
import { killAfter, noSurvivors, processesWith } from '../helpers/processes.ts';
import { removeSpillDir, runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';
import { waitFor } from '../helpers/wait.ts';

for (const provider of ['anthropic', 'openai'] as const) {
  test(`agent (${provider}): a job that ends is told to the model after the next results; the run's jobs end with it`, async () => {
    const root = tempDir();
    const flag = path.join(root, 'ended.flag');
    const marker = `3611.${process.pid}`;
    killAfter(marker);
    const model = await startModel([
      {
        calls: [
          { name: 'bash', input: { command: 'echo hi; exit 4', run_in_background: true } },
          { name: 'bash', input: { command: `sleep ${marker}`, run_in_background: true } },
        ],
      },
      // Runs until the test has seen the first job's end, so that end is known when these results are recorded.
      { calls: [{ name: 'bash', input: { command: 'while [ ! -f ended.flag ]; do sleep 0.05; done' } }] },
      { text: 'done' },
    ]);
    const rt = runtimeAt(root, { workers: 0, permissions: { allow: { run: true } } });
    const made = makeProvider({
      provider,
      apiKey: 'test-key',
      baseURL: provider === 'openai' ? `${model.url}/v1` : model.url,
      maxRetries: 0,
    });
    assert.ok(made.ok);
    const jobEvents: string[] = [];
    const onEvent = (e: AgentEvent) => {
      if (e.type !== 'job') return;
      jobEvents.push(`${e.command} ${e.state}`);
      if (e.state === 'exited 4') writeFileSync(flag, '');
    };
    const r = await runAgent({ task: 'start jobs', provider: made.value, model: 'm', runtime: rt, onEvent });
    assert.equal(r.ok, true, r.error);
    const lastRequest = JSON.stringify(model.requests[2]?.body);
    assert.match(
      lastRequest,
      /\[background job bash_\d+ \(echo hi; exit 4\) ended: exited 4; bash_output shows what it wrote last\]/,
    );
    // Told once: the first request after the end carries it, and no request before the end could.
    assert.equal(lastRequest.match(/ended: exited 4/g)?.length, 1);
    assert.ok(
      jobEvents.includes('echo hi; exit 4 running') && jobEvents.includes('echo hi; exit 4 exited 4'),
      jobEvents.join('; '),
    );
    // The sleeper the run started was stopped when the run ended.
    await noSurvivors(marker);
    assert.ok(rt.jobs.list().every((j) => !j.running));
    rmSync(flag, { force: true });
  });
}

test('mcp: a job that ends is a log notification; the client going away ends the jobs', async () => {
  const root = tempDir();
  const marker = `3612.${process.pid}`;
  killAfter(marker);
  const { client } = await mcpClient({ root, flags: ['--allow-run'] });
  const logs: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params.data);
  });
  const started = await client.callTool({ name: 'bash', arguments: { command: 'exit 7', run_in_background: true } });
  assert.equal(started.isError, false, JSON.stringify(started));
  await waitFor(() => logs.length > 0, 'the log notification');
  assert.deepEqual(logs[0], {
    event: 'job_ended',
    bash_id: (logs[0] as { bash_id: string }).bash_id,
    command: 'exit 7',
    state: 'exited 7',
    exit_code: 7,
  });
  await client.callTool({ name: 'bash', arguments: { command: `sleep ${marker}`, run_in_background: true } });
  await waitFor(() => processesWith(marker).length === 1, 'the sleeper');
  await client.close();
  await noSurvivors(marker);
  removeSpillDir(root);
});
