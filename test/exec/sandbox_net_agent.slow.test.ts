/**
 * The sandbox's network by host in an agent run on both wires (a scripted model server driven by the
 * official SDKs): the model runs curl in the sandbox against two loopback servers, and the next
 * request carries the allowed server's answer and the line naming the refused one.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { runAgent } from '../../lib/agent/loop.ts';
import { providerFor, startModel } from '../helpers/fake_model.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir } from '../helpers/temp.ts';
import { sandboxAt } from './_sandbox.ts';

requireTool('bwrap');
requireTool('curl');

async function listening(): Promise<{ port: number; close: () => Promise<void> }> {
  const s = createServer((_q, r) => r.end(`hello from ${(s.address() as AddressInfo).port}\n`));
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return {
    port: (s.address() as AddressInfo).port,
    close: () => new Promise<void>((r) => s.close(() => r())),
  };
}

for (const provider of ['anthropic', 'openai'] as const) {
  test(`agent (${provider}): a sandboxed command reaches the allowed host, and the refusal reaches the model`, async () => {
    const [open, closed] = [await listening(), await listening()];
    try {
      const command = `curl -sS http://127.0.0.1:${open.port}/; curl -sS -f http://127.0.0.1:${closed.port}/`;
      const model = await startModel([{ calls: [{ name: 'bash', input: { command } }] }, { text: 'Done.' }]);
      const rt = sandboxAt(tempDir(), {
        permissions: { allow: { run: true, net: [`127.0.0.1:${open.port}`] } },
      });
      const r = await runAgent({
        task: 'Fetch both.',
        provider: providerFor(provider, model),
        model: 'm',
        runtime: rt,
      });
      assert.equal(r.answer, 'Done.');
      const second = JSON.stringify(model.requests[1]?.body.messages);
      assert.match(second, new RegExp(`hello from ${open.port}`));
      assert.match(second, new RegExp(`network: refused 127\\.0\\.0\\.1:${closed.port}`));
    } finally {
      await open.close();
      await closed.close();
    }
  });
}
