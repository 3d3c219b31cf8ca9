import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { runtimeAt, tempDir } from '../helpers.ts';

// A stand-in for both model APIs on 127.0.0.1: records each request body and answers minimally.
const bodies: { url: string; body: Record<string, unknown> }[] = [];
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  let data = '';
  req.on('data', (c) => {
    data += c;
  });
  req.on('end', () => {
    bodies.push({ url: req.url ?? '', body: JSON.parse(data) });
    res.setHeader('content-type', 'application/json');
    if (req.url?.endsWith('/v1/messages')) {
      res.end(
        JSON.stringify({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'm',
          content: [{ type: 'text', text: 'ok' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      );
    } else {
      res.end(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: 'ok', refusal: null },
              finish_reason: 'stop',
              logprobs: null,
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    }
  });
});
let base = '';
before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections(); // the SDKs' keep-alive sockets would hold the file open for seconds
  server.close();
});

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
  const sent = bodies.at(-1);
  assert.equal(sent?.url, '/v1/messages');
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
    const sent = bodies.at(-1);
    assert.equal(sent?.url, '/v1/chat/completions');
    assert.deepEqual(sent?.body.tools, tools);
  });
}
