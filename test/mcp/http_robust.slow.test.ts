/**
 * `mewcode mcp --http` against what goes wrong: a client SIGKILLed mid-call (its command stops, no
 * survivors), a stream lost mid-call and resumed with `Last-Event-ID` (the result that completed
 * meanwhile is replayed), SIGTERM (new sessions refused, a running call finishes within the grace or
 * is stopped, exit 143), and requests curl sends wrong — no or a wrong token, a foreign Origin or
 * Host, an oversized body, malformed JSON or JSON-RPC, an unknown session: each a clear HTTP and
 * JSON-RPC error, nothing run, the server still up. Unsafe start-ups are refused with exit 2.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CLEAN_ENV, MEWCODE } from '../helpers/cli.ts';
import { ACCEPT, httpClient, INIT, rawSession, startHttpServer } from '../helpers/mcp_http.ts';
import { killAfter, noSurvivors } from '../helpers/processes.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { waitFor } from '../helpers/wait.ts';

/** SSE events from a response body as they come: `{id, data}`. */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ id?: string; data: string }> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const lines = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      const id = lines
        .find((l) => l.startsWith('id:'))
        ?.slice(3)
        .trim();
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n');
      yield { ...(id ? { id } : {}), data };
      end = buffer.indexOf('\n\n');
    }
  }
}

test('mcp --http: a client SIGKILLed mid-call — its command stops (no survivors), the server serves on', async () => {
  const root = tempDir();
  const nap = `3642.${process.pid}`;
  killAfter(nap);
  const server = await startHttpServer(root, { flags: ['--allow-run'], httpFlags: ['--resume-grace', '1'] });
  const command = JSON.stringify({ command: `touch started; sleep ${nap}; touch effect` });
  const client = spawn(
    process.execPath,
    ['--import', TSX, path.join(REPO, 'test/mcp/http_call_client.ts'), server.url, server.tokenFile, 'bash', command],
    { stdio: 'ignore' },
  );
  const exited = new Promise((r) => client.once('exit', r));
  await waitFor(() => existsSync(path.join(root, 'started')), 'the command to start');
  client.kill('SIGKILL');
  await exited;
  await noSurvivors(nap);
  assert.equal(existsSync(path.join(root, 'effect')), false);
  assert.equal((await fetch(server.url.replace(/mcp$/, 'healthz'))).status, 200);
  const { client: again } = await httpClient(server);
  assert.ok((await again.listTools()).tools.length > 0);
});

test('mcp --http: a stream lost mid-call and resumed with Last-Event-ID gets the result that completed meanwhile', async () => {
  const root = tempDir();
  const server = await startHttpServer(root, { flags: ['--allow-run'], httpFlags: ['--resume-grace', '600'] });
  const session = await rawSession(server);
  const call = {
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'bash', arguments: { command: 'while [ ! -e go ]; do sleep 0.05; done; echo finished-away' } },
  };
  const lost = new AbortController();
  const posted = await fetch(server.url, {
    method: 'POST',
    headers: session,
    body: JSON.stringify(call),
    signal: lost.signal,
  });
  assert.equal(posted.status, 200);
  // The priming event hands the client its cursor; then the client loses the stream.
  const first = await sseEvents(posted.body as ReadableStream<Uint8Array>).next();
  const cursor = first.value?.id as string;
  assert.ok(cursor, 'a priming event with an id');
  lost.abort();
  writeFileSync(path.join(root, 'go'), '');
  // 409 until the server has seen the old stream close: the stream has one reader at a time.
  let resumed = new Response(null, { status: 409 });
  await waitFor(async () => {
    resumed = await fetch(server.url, { headers: { ...session, 'Last-Event-ID': cursor } });
    if (resumed.status === 409) await resumed.text();
    return resumed.status !== 409;
  }, 'the server to see the lost stream closed');
  assert.equal(resumed.status, 200);
  let answer: { id?: number; result?: { content: { text: string }[] } } | undefined;
  for await (const e of sseEvents(resumed.body as ReadableStream<Uint8Array>)) {
    if (!e.data) continue;
    answer = JSON.parse(e.data);
    if (answer?.id === 7) break;
  }
  assert.equal(answer?.id, 7);
  assert.match(answer?.result?.content[0]?.text ?? '', /finished-away/);
});

test('mcp --http: SIGTERM drains — new sessions get 503, the running call finishes and is answered, exit 143', async () => {
  const root = tempDir();
  const server = await startHttpServer(root, { flags: ['--allow-run'], httpFlags: ['--drain-grace', '600'] });
  const { client } = await httpClient(server);
  const call = client.callTool(
    { name: 'bash', arguments: { command: 'touch started; while [ ! -e go ]; do sleep 0.05; done; echo drained-ok' } },
    undefined,
    { timeout: 3_600_000 },
  );
  await waitFor(() => existsSync(path.join(root, 'started')), 'the command to start');
  server.child.kill('SIGTERM');
  const ready = server.url.replace(/mcp$/, 'readyz');
  await waitFor(async () => (await fetch(ready)).status === 503, '/readyz to say draining');
  const init = await fetch(server.url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', Accept: ACCEPT },
    body: JSON.stringify(INIT),
  });
  assert.equal(init.status, 503);
  writeFileSync(path.join(root, 'go'), '');
  const r = await call;
  assert.match((r.content as { text: string }[])[0]?.text ?? '', /drained-ok/);
  assert.equal(await server.exited, 143);
});

test('mcp --http: SIGTERM past the drain grace stops the running call — its process group dies, exit 143', async () => {
  const root = tempDir();
  const nap = `3643.${process.pid}`;
  killAfter(nap);
  const server = await startHttpServer(root, { flags: ['--allow-run'], httpFlags: ['--drain-grace', '0'] });
  const { client } = await httpClient(server);
  // Never answered: the server stops it and exits (the client's own retries end with the test).
  void client
    .callTool({ name: 'bash', arguments: { command: `touch started; sleep ${nap}; touch effect` } }, undefined, {
      timeout: 3_600_000,
    })
    .catch(() => {});
  await waitFor(() => existsSync(path.join(root, 'started')), 'the command to start');
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 143);
  await noSurvivors(nap);
  assert.equal(existsSync(path.join(root, 'effect')), false);
});

/** curl's status and body for one request to the server. */
function curl(url: string, args: string[]): { status: number; body: string } {
  const r = spawnSync('curl', ['-s', '-o', '-', '-w', '\n%{http_code}', ...args, url], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const at = r.stdout.lastIndexOf('\n');
  return { status: Number(r.stdout.slice(at + 1)), body: r.stdout.slice(0, at) };
}

test('mcp --http: curl’s wrong requests each get a clear error, nothing runs, the server lives on', async () => {
  const root = tempDir();
  const server = await startHttpServer(root, { flags: ['--allow-run'] });
  const json = ['-H', 'Content-Type: application/json', '-H', `Accept: ${ACCEPT}`];
  const auth = ['-H', `Authorization: Bearer ${server.token}`];
  const effect = (name: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'bash', arguments: { command: `touch ${name}` } },
    });
  const code = (body: string) => (JSON.parse(body) as { error: { code: number; message: string } }).error;
  let r = curl(server.url, [...json, '-d', effect('no-token')]);
  assert.equal(r.status, 401);
  assert.match(code(r.body).message, /Authorization: Bearer/);
  r = curl(server.url, [...json, '-H', 'Authorization: Bearer wrong-token', '-d', effect('wrong-token')]);
  assert.equal(r.status, 401);
  r = curl(server.url, [...json, ...auth, '-H', 'Origin: http://evil.example', '-d', effect('origin')]);
  assert.equal(r.status, 403);
  assert.match(code(r.body).message, /Origin "http:\/\/evil\.example" is not allowed/);
  r = curl(server.url, [...json, ...auth, '-H', 'Host: evil.example', '-d', effect('host')]);
  assert.equal(r.status, 403);
  const big = path.join(tempDir(), 'big.json');
  writeFileSync(big, `{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"${'x'.repeat(5 * 1024 * 1024)}"}}`);
  r = curl(server.url, [...json, ...auth, '--data-binary', `@${big}`]);
  assert.equal(r.status, 413);
  r = curl(server.url, [...json, ...auth, '-d', '{"jsonrpc": "2.0", "id": 1, "method":']);
  assert.equal(r.status, 400);
  assert.equal(code(r.body).code, -32700);
  r = curl(server.url, [...json, ...auth, '-H', 'Mcp-Session-Id: no-such-session', '-d', effect('unknown')]);
  assert.equal(r.status, 404);
  assert.equal(code(r.body).code, -32001);
  const session = await rawSession(server);
  r = curl(server.url, [...json, ...auth, '-H', `Mcp-Session-Id: ${session['Mcp-Session-Id']}`, '-d', '{"hello":1}']);
  assert.equal(r.status, 400);
  assert.equal(code(r.body).code, -32700);
  for (const f of ['no-token', 'wrong-token', 'origin', 'host', 'unknown'])
    assert.equal(existsSync(path.join(root, f)), false, `${f} ran`);
  assert.equal(curl(server.url.replace(/mcp$/, 'healthz'), []).status, 200);
  assert.equal(server.child.exitCode, null);
});

test('mcp --http: an unsafe or unclear start is refused with exit 2 and a reason', () => {
  const root = tempDir();
  const dir = tempDir();
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [...MEWCODE, '--root', root, 'mcp', ...args], { env: CLEAN_ENV, encoding: 'utf8' });
  let r = run('--http', '--listen', '0.0.0.0:0');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /not loopback.*--token-file/s);
  const open = path.join(dir, 'open');
  writeTree(dir, { open: 'x'.repeat(64), short: 'tiny' });
  chmodSync(open, 0o644);
  r = run('--http', '--listen', '127.0.0.1:0', '--token-file', open);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /may be read by others: chmod 600/);
  const short = path.join(dir, 'short');
  chmodSync(short, 0o600);
  r = run('--http', '--listen', '127.0.0.1:0', '--token-file', short);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /shorter than 32 characters/);
  r = run('--listen', '127.0.0.1:0');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--listen is for mcp --http/);
  r = run('--http', '--tls-cert', open);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--tls-cert and --tls-key go together/);
});
