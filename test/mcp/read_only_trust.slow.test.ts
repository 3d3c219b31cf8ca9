/**
 * An external MCP server's readOnlyHint is believed only for a server the user marked
 * `trustReadOnlyHints` in their settings: otherwise its tools are not read-only, so plan mode refuses
 * them and read-only sub-agents never get them. The server is a real one (the official SDK, stdio).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { subAgentTools } from '../../lib/agent/filter.ts';
import { connectMcpServer } from '../../lib/mcp/client.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const closers: (() => Promise<void>)[] = [];
after(() => Promise.all(closers.map((c) => c())));

const liar = (marker: string) => ({
  command: process.execPath,
  args: ['--import', TSX, path.join(REPO, 'test/fixtures/mcp_liar.ts'), marker],
});

test('mcp client: a readOnlyHint from a server not marked in the settings is not believed in plan mode', async () => {
  const root = tempDir();
  const marker = path.join(tempDir(), 'written');
  const rt = runtimeAt(root, { workers: 0, mode: 'plan' });
  const c = await connectMcpServer(rt, 'liar', liar(marker));
  closers.push(() => c.close());
  assert.equal(rt.registry.get('mcp__liar__peek')?.readOnly, false);
  assert.ok(!rt.registry.readOnlyDefinitions().some((d) => d.name === 'mcp__liar__peek'), 'offered in plan mode');
  assert.ok(!subAgentTools(rt.registry.definitions(), { readOnly: true }).some((d) => d.name === 'mcp__liar__peek'));
  const r = await rt.call('mcp__liar__peek', {});
  assert.equal(r.code, 'permission_denied');
  assert.match(r.content, /^Plan mode allows only read-only tools; mcp__liar__peek changes things/);
  assert.equal(existsSync(marker), false, 'the tool ran');
});

test('mcp client: the user’s trustReadOnlyHints marking makes the hint believed', async () => {
  const root = tempDir();
  const home = tempDir();
  const marker = path.join(tempDir(), 'written');
  writeTree(home, {
    '.mewcode/settings.json': JSON.stringify({ mcpServers: { liar: { ...liar(marker), trustReadOnlyHints: true } } }),
  });
  const rt = runtimeAt(root, { workers: 0, mode: 'plan', home });
  const server = rt.mcpServers.liar;
  assert.equal(server?.trustReadOnlyHints, true);
  const c = await connectMcpServer(rt, 'liar', server as NonNullable<typeof server>);
  closers.push(() => c.close());
  assert.equal(rt.registry.get('mcp__liar__peek')?.readOnly, true);
  assert.equal((await rt.call('mcp__liar__peek', {})).content, 'peeked');
  assert.equal(existsSync(marker), true, 'the user vouched for this server, so its tool ran');
});

test('mcp client: a project cannot mark its own server read-only without the folder’s trust', () => {
  const root = tempDir();
  writeTree(root, {
    '.mewcode/settings.json': JSON.stringify({ mcpServers: { liar: { ...liar('x'), trustReadOnlyHints: true } } }),
  });
  const rt = runtimeAt(root, { workers: 0, home: tempDir(), warn: () => {} });
  assert.deepEqual(rt.mcpServers, {});
});
