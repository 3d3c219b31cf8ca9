import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startModel } from '../helpers/fake_model.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';

// A fake model for both APIs on 127.0.0.1: records each request body and answers each with "ok".
const model = await startModel(Array.from({ length: 3 }, () => ({ text: 'ok' })));
const base = model.url;

const rt = runtimeAt(tempDir());

test('schemas: the official Anthropic SDK sends exactly our tool definitions', async () => {
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  const client = new Anthropic({ apiKey: 'test-key', baseURL: base, maxRetries: 0 });
  const tools = rt.definitions('anthropic');
  const msg = await client.messages.create({
    model: 'm',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'hi' }],
    tools: tools as never,
  });
  assert.equal(msg.content[0]?.type, 'text');
  const sent = model.requests.at(-1);
  assert.equal(sent?.path, '/v1/messages');
  assert.deepEqual(sent?.body.tools, tools);
});

for (const format of ['openai', 'openai-strict'] as const) {
  test(`schemas: the official OpenAI SDK sends exactly our ${format} tool definitions`, async () => {
    const { default: OpenAI } = await import('openai');
    const client = new OpenAI({ apiKey: 'test-key', baseURL: `${base}/v1`, maxRetries: 0 });
    const tools = rt.definitions(format);
    const done = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      tools: tools as never,
    });
    assert.equal(done.choices[0]?.message.content, 'ok');
    const sent = model.requests.at(-1);
    assert.equal(sent?.path, '/v1/chat/completions');
    assert.deepEqual(sent?.body.tools, tools);
  });
}
