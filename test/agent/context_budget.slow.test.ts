/**
 * The context budget, both wires, against the scripted server: with MEWCODE_CONTEXT_TOKENS small, a run
 * that reads large files and writes a large one never sends a request over the budget — older tool
 * results are cleared to a stub, the applied write's content is summarized, then the model compacts the
 * conversation, the recently read files come back, and the run goes on to its answer.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { type AgentEvent, runAgent } from '../../lib/agent/loop.ts';
import { makeProvider } from '../../lib/llm/providers.ts';
import { startModel } from '../helpers/fake_model.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const BUDGET = 18_000;
process.env.MEWCODE_CONTEXT_TOKENS = String(BUDGET);

/** `kb` KiB of numbered lines, each naming its file, so what comes back can be told apart. */
const lines = (name: string, kb: number) =>
  Array.from(
    { length: Math.ceil((kb * 1024) / 40) },
    (_, i) => `${name} line ${String(i).padStart(5, '0')} ${'x'.repeat(18)}`,
  ).join('\n');

for (const provider of ['anthropic', 'openai'] as const) {
  test(`${provider}: no request exceeds MEWCODE_CONTEXT_TOKENS; results are cleared, inputs summarized, the model compacts, the run goes on`, async () => {
    const big = lines('written', 24);
    const model = await startModel(
      [
        { calls: [{ name: 'read_file', input: { file_path: 'a.txt' } }] },
        { calls: [{ name: 'read_file', input: { file_path: 'b.txt' } }] },
        { calls: [{ name: 'read_file', input: { file_path: 'c.txt' } }] },
        { calls: [{ name: 'write_file', input: { file_path: 'out.txt', content: big } }] },
        { calls: [{ name: 'read_file', input: { file_path: 'd.txt' } }] },
        { text: 'all done' },
      ],
      { summary: 'SUMMARY: read a, b, c and d; wrote out.txt.' },
    );
    const root = tempDir();
    writeTree(root, {
      'a.txt': lines('a', 9),
      'b.txt': lines('b', 9),
      'c.txt': lines('c', 9),
      'd.txt': lines('d', 30),
    });
    const rt = runtimeAt(root, { workers: 1, permissions: { allow: { write: true } } });
    const made = makeProvider({
      provider,
      apiKey: 'k',
      baseURL: provider === 'openai' ? `${model.url}/v1` : model.url,
      maxRetries: 0,
    });
    assert.ok(made.ok);
    const events: AgentEvent[] = [];
    const r = await runAgent({
      task: 'go',
      provider: made.value,
      model: 'm',
      runtime: rt,
      onEvent: (e) => events.push(e),
    });
    assert.deepEqual([r.ok, r.answer], [true, 'all done'], r.error);
    assert.equal(readFileSync(path.join(root, 'out.txt'), 'utf8'), big);

    const bodies = model.requests.map((q) => JSON.stringify(q.body));
    for (const [i, b] of bodies.entries()) {
      assert.ok(Buffer.byteLength(b) / 3 <= BUDGET, `request ${i} is ${Math.ceil(Buffer.byteLength(b) / 3)} tokens`);
      assert.ok((model.requests[i]?.body.max_tokens as number) <= BUDGET / 4);
    }
    // Clearing: a stub that says how to get the result back.
    const cleared = bodies.findIndex((b) => b.includes('[cleared to save context: this read_file result'));
    assert.ok(cleared > 0);
    assert.match(
      bodies[cleared] ?? '',
      /run read_file again with the same arguments \(\{\\*"file_path\\*":\\*"a\.txt\\*"\}\)/,
    );
    // The write's 24 KiB content, applied, is summarized in later requests.
    const summarized = bodies.findIndex((b) => /\[\d+ characters, \d+ lines: the call ran/.test(b));
    assert.ok(summarized > cleared);
    assert.ok(!bodies[summarized]?.includes(big.slice(0, 2000)));
    // Compaction by the model, then the run continues from the summary and the files read again.
    const compaction = bodies.findIndex((b) => b.includes('Summarize the conversation above'));
    assert.ok(compaction > summarized);
    const next = bodies[compaction + 1] ?? '';
    assert.match(next, /SUMMARY: read a, b, c and d; wrote out\.txt\./);
    assert.match(next, /Recently read file, read again after compaction: d\.txt/);
    assert.match(next, /d line 00000/);
    assert.ok(!next.includes('[cleared to save context'));
    const notices = events.filter((e) => e.type === 'notice').map((e) => (e as { message: string }).message);
    assert.ok(
      notices.some((n) => /compacted into a summary by the model; read again: d\.txt/.test(n)),
      notices.join('\n'),
    );
  });
}

test('a budget too small for the task, the system prompt and the tools stops the run before any request, saying what to raise', async () => {
  const model = await startModel([{ text: 'never asked' }]);
  const rt = runtimeAt(tempDir(), { workers: 1 });
  const made = makeProvider({ provider: 'anthropic', apiKey: 'k', baseURL: model.url, maxRetries: 0 });
  assert.ok(made.ok);
  const r = await runAgent({ task: 'go', provider: made.value, model: 'm', runtime: rt, contextTokens: 1000 });
  assert.deepEqual([r.reason, model.requests.length], ['error', 0]);
  assert.match(r.error ?? '', /context budget \(1000 tokens\) is too small .* raise MEWCODE_CONTEXT_TOKENS/);
});
