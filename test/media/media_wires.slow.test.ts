/**
 * A picture read by the agent reaches the model on both wires (scripted model servers driven by the
 * official SDKs) — Anthropic's tool_result carries the image block, OpenAI's tool message the text
 * and the user message after it the image — and an MCP client gets it as MCP's image content.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { runAgent } from '../../lib/agent/loop.ts';
import { runCli } from '../helpers/cli.ts';
import { providerFor, startModel } from '../helpers/fake_model.ts';
import { mcpClient } from '../helpers/mcp_client.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';

async function shot(root: string): Promise<string> {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 0, g: 128, b: 0 } } })
    .png()
    .toBuffer();
  writeFileSync(path.join(root, 'shot.png'), png);
  return png.toString('base64');
}

for (const provider of ['anthropic', 'openai'] as const) {
  test(`agent (${provider}): a picture read_file shows reaches the model as an image`, async () => {
    const root = tempDir();
    const data = await shot(root);
    const model = await startModel([
      { calls: [{ name: 'read_file', input: { file_path: 'shot.png' } }] },
      { text: 'A green square.' },
    ]);
    const rt = runtimeAt(root, { workers: 0 });
    const r = await runAgent({
      task: 'What is in shot.png?',
      provider: providerFor(provider, model),
      model: 'm',
      runtime: rt,
    });
    assert.equal(r.answer, 'A green square.');
    const messages = model.requests[1]?.body.messages as Record<string, unknown>[];
    if (provider === 'anthropic') {
      const results = messages.at(-1)?.content as { type: string; content: unknown }[];
      const parts = results[0]?.content as Record<string, unknown>[];
      assert.equal(parts[0]?.type, 'text');
      assert.match(String(parts[0]?.text), /^Image "shot\.png": PNG, 64×48/);
      assert.deepEqual(parts[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data } });
    } else {
      const tool = messages.find((m) => m.role === 'tool');
      assert.match(String(tool?.content), /^Image "shot\.png": PNG, 64×48/);
      const after = messages.at(-1) as { role: string; content: Record<string, unknown>[] };
      assert.equal(after.role, 'user');
      assert.match(String(after.content[0]?.text), /^Image 1 of the read_file result \S+ \(64×48\):$/);
      assert.deepEqual(after.content[1], { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } });
    }
  });
}

test('mcp server: read_file of a picture answers text and MCP image content', async () => {
  const root = tempDir();
  const data = await shot(root);
  const { client } = await mcpClient({ root });
  const r = await client.callTool({ name: 'read_file', arguments: { file_path: 'shot.png' } });
  const content = r.content as Record<string, unknown>[];
  assert.equal(content[0]?.type, 'text');
  assert.match(String(content[0]?.text), /^Image "shot\.png": PNG, 64×48/);
  assert.deepEqual(content[1], { type: 'image', data, mimeType: 'image/png' });
});

test('cli: read says what a picture is and where to see it; --json gives the image block', async () => {
  const root = tempDir();
  const data = await shot(root);
  const r = await runCli(['read', 'shot.png'], { cwd: root });
  assert.deepEqual(r, {
    code: 0,
    out:
      'Image "shot.png": PNG, 64×48, ' +
      `${Buffer.from(data, 'base64').length}` +
      ' bytes. Open the file to see it; --json prints the image block a model is given.\n',
    err: '',
  });
  const j = await runCli(['read', 'shot.png', '--json'], { cwd: root });
  assert.deepEqual(JSON.parse(j.out).images, [{ mediaType: 'image/png', data, width: 64, height: 48 }]);
});
