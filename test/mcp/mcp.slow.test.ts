import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { DEFAULT_RESULT_BYTES } from '../../lib/core/budget.ts';
import { connectMcpServer } from '../../lib/mcp/client.ts';
import { mcpClient, resultText } from '../helpers/mcp_client.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { removeSpills, runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const root = tempDir();
writeTree(root, { 'a.txt': 'alpha\n', 'src/b.ts': 'export {}; // TODO\n' });
const closers: (() => Promise<void>)[] = [];
after(() => Promise.all(closers.map((c) => c())));

const mewcodeMcp = async (flags: string[] = []) => (await mcpClient({ root, flags })).client;

test('mcp server: the official client lists the tools with read-only and destructive annotations', async () => {
  const client = await mewcodeMcp();
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t) => [t.name, t.annotations?.readOnlyHint, t.annotations?.destructiveHint]),
    [
      ['read_file', true, false],
      ['glob', true, false],
      ['grep', true, false],
      ['load_skill', true, false],
      ['bash_output', true, false],
      ['web_fetch', true, false],
      ['todo_write', true, false],
      ['write_file', false, true],
      ['edit_file', false, true],
      ['multi_edit', false, true],
      ['apply_patch', false, true],
      ['notebook_edit', false, true],
      ['bash', false, true],
      ['kill_bash', false, true],
      ['write_stdin', false, true],
      ['install_skill', false, true],
      ['history', true, false],
      ['rewind', false, true],
    ],
  );
  assert.equal((tools[0]?.inputSchema as { required?: string[] } | undefined)?.required?.[0], 'file_path');
});

test('mcp server: calls, errors with their code, and a denied write', async () => {
  const client = await mewcodeMcp();
  const read = await client.callTool({ name: 'read_file', arguments: { file_path: 'a.txt' } });
  assert.deepEqual([read.isError, (read.content as { text: string }[])[0]?.text], [false, '     1\talpha']);
  const grep = await client.callTool({ name: 'grep', arguments: { pattern: 'TODO' } });
  assert.equal((grep.content as { text: string }[])[0]?.text, 'src/b.ts:1:export {}; // TODO');
  const missing = await client.callTool({ name: 'read_file', arguments: { file_path: 'nope.txt' } });
  assert.equal(missing.isError, true);
  assert.equal((missing.structuredContent as { code: string }).code, 'not_found');
  const denied = await client.callTool({ name: 'write_file', arguments: { file_path: 'x.txt', content: 'x' } });
  assert.equal(denied.isError, true);
  assert.equal((denied.structuredContent as { code: string }).code, 'permission_denied');
  assert.match((denied.content as { text: string }[])[0]?.text ?? '', /Run again with --allow-write=x\.txt/);
  const bad = await client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } });
  assert.equal((bad.structuredContent as { code: string }).code, 'invalid_args');
});

test('mcp server: with --allow-write the same client writes', async () => {
  const client = await mewcodeMcp(['--allow-write=out']);
  const w = await client.callTool({ name: 'write_file', arguments: { file_path: 'out/new.txt', content: 'made\n' } });
  assert.equal((w.content as { text: string }[])[0]?.text, 'Created "out/new.txt" (5 bytes, 1 lines).');
});

test('mcp server: started with the allocator setting docs/mcp.md gives and a node flag, it serves, and its commands see neither', async () => {
  const env = {
    NODE_OPTIONS: '--max-semi-space-size=2',
    GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072:glibc.malloc.arena_max=2',
  };
  const { client } = await mcpClient({ root, flags: ['--allow-run'], env });
  const grep = await client.callTool({ name: 'grep', arguments: { pattern: 'TODO' } });
  assert.equal(resultText(grep), 'src/b.ts:1:export {}; // TODO');
  const seen = await client.callTool({
    name: 'bash',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash command line, where ${…} is bash's
    arguments: { command: 'echo "[${NODE_OPTIONS-unset}] [${GLIBC_TUNABLES-unset}]"' },
  });
  assert.equal(seen.isError, false, resultText(seen));
  assert.match(resultText(seen), /^\[unset\] \[unset\]$/m);
});

test('mcp client: an external server’s tools register as mcp__<server>__<tool>, through the policy', async () => {
  const rt = runtimeAt(root, { workers: 0 });
  const c = await connectMcpServer(rt, 'fx', {
    command: process.execPath,
    args: ['--import', TSX, path.join(REPO, 'test/fixtures/mcp_server.ts')],
    trustReadOnlyHints: true, // echo's readOnlyHint is believed only for a server the user marked
  });
  closers.push(() => c.close());
  assert.deepEqual(c.tools, ['mcp__fx__echo', 'mcp__fx__shout']);
  assert.deepEqual(c.warnings, [
    'mcp__fx__shout: text: oneOf is not expressible in OpenAI strict mode (moved into the description)',
  ]);
  assert.equal(rt.registry.get('mcp__fx__echo')?.readOnly, true);
  assert.equal(rt.registry.get('mcp__fx__shout')?.readOnly, false);
  assert.deepEqual(await rt.call('mcp__fx__echo', { text: 'hi' }), {
    content: 'hi',
    isError: false,
    meta: { policy: { allow: true, by: 'default', reason: 'nothing to check', source: 'nothing to check' } },
  });
  const asked = await rt.call('mcp__fx__shout', { text: 'hi' });
  assert.equal(asked.code, 'permission_denied');
  const allowed = runtimeAt(root, { workers: 0, permissions: { allow: { run: ['mcp__fx__shout'] } } });
  const c2 = await connectMcpServer(allowed, 'fx', {
    command: process.execPath,
    args: ['--import', TSX, path.join(REPO, 'test/fixtures/mcp_server.ts')],
  });
  closers.push(() => c2.close());
  assert.equal((await allowed.call('mcp__fx__shout', { text: 'hi' })).content, 'HI!');
  const failed = await allowed.call('mcp__fx__shout', { text: '' });
  assert.deepEqual([failed.isError, failed.content], [true, 'nothing to shout']);
  assert.equal((await allowed.call('mcp__fx__echo', 'not an object')).code, 'invalid_args');
  assert.ok(rt.registry.definitions().some((d) => d.name === 'mcp__fx__echo'));
});

test('mcp client: a remote tool keeps its name and the schema its server declared, and the output budget cuts what it returns', async () => {
  const rt = runtimeAt(root, { workers: 0 });
  // Capitals and '-' are valid in an MCP server name, though not in a built-in tool's.
  const c = await connectMcpServer(rt, 'Fx-2', {
    command: process.execPath,
    args: ['--import', TSX, path.join(REPO, 'test/fixtures/mcp_server.ts')],
    trustReadOnlyHints: true, // its echo says it only reads, so it runs without a grant
  });
  closers.push(() => c.close());
  assert.deepEqual(c.tools, ['mcp__Fx-2__echo', 'mcp__Fx-2__shout']);
  assert.equal(rt.registry.get('mcp__Fx-2__echo')?.name, 'mcp__Fx-2__echo');
  assert.deepEqual(rt.registry.get('mcp__Fx-2__echo')?.inputSchema, {
    type: 'object',
    properties: { text: { type: 'string', description: 'what to echo' } },
    required: ['text'],
  });
  const text = `${'0123456789abcdef\n'.repeat(20_000)}end`;
  const r = await rt.call('mcp__Fx-2__echo', { text });
  assert.equal(r.isError, false);
  const cut = r.meta?.truncated;
  assert.ok(cut && cut.shownBytes < DEFAULT_RESULT_BYTES && cut.totalBytes === text.length);
  assert.ok(Buffer.byteLength(r.content) <= DEFAULT_RESULT_BYTES);
  assert.ok(text.startsWith(r.content.slice(0, r.content.lastIndexOf('\n[truncated: '))));
  assert.match(r.content, /\n\[truncated: showing [\d,]+ of 340,003 bytes; the whole output is in "[^"]+"/);
  assert.equal(readFileSync(cut.spillPath ?? '', 'utf8'), text);
  removeSpills(r);
  const anArray = await rt.call('mcp__Fx-2__echo', ['hi']);
  assert.deepEqual([anArray.code, anArray.content], ['invalid_args', 'mcp__Fx-2__echo takes an object of arguments.']);
});
