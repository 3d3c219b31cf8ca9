/**
 * `mewcode mcp --http` with the official SDK's Streamable HTTP client over real loopback HTTP: tools
 * listed and called (text and a picture), a session id, DELETE ends the session, two sessions share
 * one runtime (an edit by one seen by the other, concurrent edits of one file all kept), a cancelled
 * call's process group dies, the health endpoints, TLS; and MewCode's own client reaching an HTTP
 * server from the settings, under the same folder trust as a stdio one.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { connectMcpServer } from '../../lib/mcp/client.ts';
import { resultText } from '../helpers/mcp_client.ts';
import { httpClient, startHttpServer } from '../helpers/mcp_http.ts';
import { killAfter, noSurvivors } from '../helpers/processes.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { loopbackCert } from '../helpers/tls.ts';
import { waitFor } from '../helpers/wait.ts';

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

test('mcp --http: the SDK client lists and calls tools, gets a picture, and holds a session id', async () => {
  const root = tempDir();
  const png = await sharp({ create: { width: 8, height: 4, channels: 3, background: '#208020' } })
    .png()
    .toBuffer();
  writeTree(root, { 'a.txt': 'alpha\nbeta\n', 'p.png': png });
  const server = await startHttpServer(root);
  const { client, transport } = await httpClient(server);
  assert.match(transport.sessionId ?? '', /^[0-9a-f-]{36}$/);
  const names = (await client.listTools()).tools.map((t) => t.name);
  for (const n of ['read_file', 'grep', 'edit_file', 'bash', 'history', 'rewind']) assert.ok(names.includes(n), n);
  assert.match(resultText(await client.callTool({ name: 'read_file', arguments: { file_path: 'a.txt' } })), /beta/);
  const grep = await client.callTool({ name: 'grep', arguments: { pattern: 'bet', output_mode: 'content' } });
  assert.match(resultText(grep), /a\.txt.*beta/);
  const pic = await client.callTool({ name: 'read_file', arguments: { file_path: 'p.png' } });
  const image = (pic.content as { type: string; mimeType?: string }[]).find((c) => c.type === 'image');
  assert.equal(image?.mimeType, 'image/png');
  const denied = await client.callTool({ name: 'bash', arguments: { command: 'echo hi' } });
  assert.equal(denied.isError, true);
  assert.equal((denied.structuredContent as { code?: string }).code, 'permission_denied');
});

test('mcp --http: DELETE ends the session, after which its id is unknown (404)', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'alpha\n' });
  const server = await startHttpServer(root);
  const { client, transport } = await httpClient(server);
  const id = transport.sessionId as string;
  assert.ok((await client.listTools()).tools.length > 0);
  await transport.terminateSession();
  const later = await fetch(server.url, {
    method: 'POST',
    headers: {
      ...bearer(server.token),
      'Mcp-Session-Id': id,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
  });
  assert.equal(later.status, 404);
  assert.equal(((await later.json()) as { error: { code: number } }).error.code, -32001);
});

test('mcp --http: two sessions share the runtime — one sees the other’s edit, and 40 concurrent edits of one file are all kept', async () => {
  const root = tempDir();
  writeTree(root, { 'shared.txt': 'END\n' });
  const server = await startHttpServer(root, { flags: ['--allow-write'] });
  const a = (await httpClient(server)).client;
  const b = (await httpClient(server)).client;
  await a.callTool({ name: 'read_file', arguments: { file_path: 'shared.txt' } });
  await b.callTool({ name: 'read_file', arguments: { file_path: 'shared.txt' } });
  const edits = Array.from({ length: 40 }, (_, i) =>
    (i % 2 ? a : b).callTool({
      name: 'edit_file',
      arguments: { file_path: 'shared.txt', old_string: 'END\n', new_string: `line ${i}\nEND\n` },
    }),
  );
  const results = await Promise.all(edits);
  for (const r of results) assert.notEqual(r.isError, true, resultText(r));
  const lines = readFileSync(path.join(root, 'shared.txt'), 'utf8').trim().split('\n');
  assert.equal(lines.length, 41);
  for (let i = 0; i < 40; i++) assert.equal(lines.filter((l) => l === `line ${i}`).length, 1, `line ${i}`);
  // What a wrote through the shared runtime, b reads.
  assert.match(resultText(await b.callTool({ name: 'read_file', arguments: { file_path: 'shared.txt' } })), /line 39/);
});

test('mcp --http: notifications/cancelled stops a running bash call — its process group dies', async () => {
  const root = tempDir();
  const nap = `3641.${process.pid}`;
  killAfter(nap);
  const server = await startHttpServer(root, { flags: ['--allow-run'] });
  const { client } = await httpClient(server);
  const controller = new AbortController();
  const call = client
    .callTool({ name: 'bash', arguments: { command: `touch started; sleep ${nap}; touch effect` } }, undefined, {
      signal: controller.signal,
      timeout: 3_600_000,
    })
    .then(
      () => 'answered',
      () => 'rejected',
    );
  await waitFor(() => existsSync(path.join(root, 'started')), 'the command to start');
  controller.abort('changed my mind');
  assert.equal(await call, 'rejected');
  await noSurvivors(nap);
  assert.equal(existsSync(path.join(root, 'effect')), false);
  assert.match(resultText(await client.callTool({ name: 'bash', arguments: { command: 'echo again' } })), /again/);
});

test('mcp --http: /healthz and /readyz answer without the token and say nothing sensitive', async () => {
  const root = tempDir();
  const server = await startHttpServer(root);
  const base = server.url.replace(/\/mcp$/, '');
  const health = await fetch(`${base}/healthz`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: 'ok' });
  await httpClient(server);
  const ready = await fetch(`${base}/readyz`);
  assert.equal(ready.status, 200);
  const body = (await ready.json()) as { status: string; sessions: number; index: unknown };
  assert.equal(body.status, 'ready');
  assert.equal(body.sessions, 1);
  assert.ok(body.index !== undefined);
  assert.ok(!JSON.stringify(body).includes(root), 'the root is not revealed');
});

test('mcp --http: over TLS with --tls-cert and --tls-key', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'over tls\n' });
  const cert = loopbackCert(tempDir());
  const certDir = path.dirname(cert.certFile);
  const server = await startHttpServer(root, {
    httpFlags: ['--tls-cert', cert.certFile, '--tls-key', path.join(certDir, 'key.pem')],
  });
  assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
  // A client process that trusts the test certificate (Node's fetch reads NODE_EXTRA_CA_CERTS at start).
  const out = execFileSync(
    process.execPath,
    [
      '--import',
      TSX,
      path.join(REPO, 'test/mcp/http_call_client.ts'),
      server.url,
      server.tokenFile,
      'read_file',
      '{"file_path":"a.txt"}',
    ],
    { env: { ...process.env, NODE_EXTRA_CA_CERTS: cert.certFile }, encoding: 'utf8' },
  );
  assert.match(out, /over tls/);
});

test('mcp client: a settings server with a url is reached over HTTP and its tools called; an untrusted project’s is ignored', async () => {
  const served = tempDir();
  writeTree(served, { 'remote.txt': 'from the other runtime\n' });
  const server = await startHttpServer(served);
  const root = tempDir();
  const home = tempDir();
  // The settings' own `${NAME}` syntax, not a template literal.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the settings file spells an environment variable so
  const entry = { url: server.url, headers: { Authorization: 'Bearer ${MEWCODE_TEST_TOKEN}' } };
  writeTree(home, { '.mewcode/settings.json': JSON.stringify({ mcpServers: { other: entry } }) });
  process.env.MEWCODE_TEST_TOKEN = server.token;
  const rt = runtimeAt(root, { workers: 0, home, permissions: { allow: { run: ['mcp__other__read_file'] } } });
  const config = rt.mcpServers.other;
  assert.equal(config?.url, server.url);
  const c = await connectMcpServer(rt, 'other', config as NonNullable<typeof config>);
  try {
    assert.ok(c.tools.includes('mcp__other__read_file'));
    const r = await rt.call('mcp__other__read_file', { file_path: 'remote.txt' });
    assert.match(r.content, /from the other runtime/);
  } finally {
    await c.close();
    await rt.close();
    delete process.env.MEWCODE_TEST_TOKEN;
  }
  const project = tempDir();
  writeTree(project, { '.mewcode/settings.json': JSON.stringify({ mcpServers: { other: { url: server.url } } }) });
  const untrusted = runtimeAt(project, { workers: 0, home: tempDir(), warn: () => {} });
  assert.deepEqual(untrusted.mcpServers, {});
  await untrusted.close();
});

test('settings: an MCP server needs exactly one of command or url, and headers only with a url', () => {
  for (const bad of [{}, { command: 'x', url: 'http://127.0.0.1:1/mcp' }, { command: 'x', headers: { a: 'b' } }]) {
    const root = tempDir();
    writeTree(root, { '.mewcode/settings.json': JSON.stringify({ mcpServers: { s: bad } }) });
    assert.throws(() => runtimeAt(root, { workers: 0, home: tempDir(), trust: true }), /exactly one|headers/);
  }
});
