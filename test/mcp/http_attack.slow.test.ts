/**
 * An outside review's reproductions against `mewcode mcp --http`, each failing until its hole is
 * mended: a token file another user planted (owned by them, or a symlink to their file) is taken as
 * the secret; two calls whose JSON-RPC ids differ only in type (5 and "5") share one slot, so a lost
 * stream stops the wrong one; a client that resumed once and then died keeps its command running
 * for good; a body past the limit that never ends is never answered; TLS files that are not PEM
 * crash the start instead of a usage error; a connection that sends nothing is held for ever. The
 * session cap under concurrent initializes held.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadToken } from '../../lib/mcp/http_guard.ts';
import { CLEAN_ENV, MEWCODE } from '../helpers/cli.ts';
import { ACCEPT, INIT, rawSession, startHttpServer } from '../helpers/mcp_http.ts';
import { killAfter, noSurvivors } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp.ts';
import { waitFor } from '../helpers/wait.ts';

const asRoot = process.getuid?.() === 0;
/** nobody: a user other than the one serving. */
const OTHER_UID = 65534;

const bashCall = (id: unknown, command: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'bash', arguments: { command } } });

test('mcp --http token: a token file owned by another user (mode 0600, planted before the first start) is refused', {
  skip: !asRoot && 'needs root to plant a file as another user',
}, () => {
  const dir = tempDir();
  const planted = path.join(dir, 'token');
  writeFileSync(planted, 'attacker-knows-this-token-0123456789abcdef\n', { mode: 0o600 });
  chownSync(planted, OTHER_UID, OTHER_UID);
  const r = loadToken(planted);
  assert.equal(r.ok, false, `a token another user wrote was accepted: ${JSON.stringify(r)}`);
});

test('mcp --http token: a symlink planted at the token path, to a file another user owns, is refused', {
  skip: !asRoot && 'needs root to plant a file as another user',
}, () => {
  const dir = tempDir();
  const theirs = path.join(dir, 'theirs');
  writeFileSync(theirs, 'attacker-knows-this-token-0123456789abcdef\n', { mode: 0o600 });
  chownSync(theirs, OTHER_UID, OTHER_UID);
  const at = path.join(dir, 'mcp-http.token');
  symlinkSync(theirs, at);
  const r = loadToken(at);
  assert.equal(r.ok, false, `a symlinked token was followed and accepted: ${JSON.stringify(r)}`);
});

test('mcp --http: a lost stream stops its own call, not another call whose id is the same number as a string', async () => {
  const root = tempDir();
  const nap = `3643.${process.pid}`;
  killAfter(nap);
  const server = await startHttpServer(root, { flags: ['--allow-run'], httpFlags: ['--resume-grace', '1'] });
  const session = await rawSession(server);
  const post = async (id: unknown, command: string, stream: AbortController) => {
    const r = await fetch(server.url, {
      method: 'POST',
      headers: session,
      body: bashCall(id, command),
      signal: stream.signal,
    });
    assert.equal(r.status, 200);
    void r.text().catch(() => {});
  };
  const first = new AbortController();
  const second = new AbortController();
  // The first runs; the second, its id 5 as a string, queues behind it in the write lane, its stream open.
  await post(5, `touch started; sleep ${nap}`, first);
  await waitFor(() => existsSync(path.join(root, 'started')), 'the first command to start');
  await post('5', 'touch second-ran', second);
  // The first call's client goes away and never resumes: past the 1 s grace its command must stop.
  first.abort();
  await noSurvivors(nap);
  second.abort();
});

test('mcp --http: a body past 4 MiB is answered 413 without waiting for a body that never ends', async () => {
  const root = tempDir();
  const server = await startHttpServer(root);
  const { request } = await import('node:http');
  const url = new URL(server.url);
  const req = request({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', Accept: ACCEPT },
  });
  const status = new Promise<number>((resolve, reject) => {
    req.once('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
  });
  // 5 MiB of a chunked body, and then the client just holds the request open.
  for (let i = 0; i < 5; i++) req.write(Buffer.alloc(1 << 20, 32));
  // A generous outer bound: the answer needs no more of the body, so waiting a minute is a hang.
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<number>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer within 60 s while the body was held open')), 60_000);
  });
  try {
    assert.equal(await Promise.race([status, hang]), 413);
  } finally {
    clearTimeout(timer);
    req.destroy();
  }
});

/** The id of a POST stream's first (priming) event. */
async function primingId(body: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    const id = /^id:\s*(\S+)/m.exec(text)?.[1];
    if (id && text.includes('\n\n')) return id;
  }
  throw new Error(`no priming event: ${text}`);
}

test('mcp --http: a client that resumed a lost stream and then died leaves no command behind after the grace', async () => {
  const root = tempDir();
  const nap = `3644.${process.pid}`;
  killAfter(nap);
  const server = await startHttpServer(root, { flags: ['--allow-run'], httpFlags: ['--resume-grace', '1'] });
  const session = await rawSession(server);
  const lost = new AbortController();
  const posted = await fetch(server.url, {
    method: 'POST',
    headers: session,
    body: bashCall(9, `touch started; sleep ${nap}`),
    signal: lost.signal,
  });
  assert.equal(posted.status, 200);
  const cursor = await primingId(posted.body as ReadableStream<Uint8Array>);
  await waitFor(() => existsSync(path.join(root, 'started')), 'the command to start');
  lost.abort();
  // The client comes back once (409 until the server has seen the old stream close)...
  const again = new AbortController();
  await waitFor(async () => {
    const r = await fetch(server.url, { headers: { ...session, 'Last-Event-ID': cursor }, signal: again.signal });
    if (r.status === 409) await r.text();
    return r.status === 200;
  }, 'the resume to be accepted');
  // ...and dies for good: its resumed stream closes too. Past the 1 s grace the call must stop.
  again.abort();
  await noSurvivors(nap);
});

test('mcp --http: concurrent initializes cannot open more than the 256 sessions the cap allows', async () => {
  const root = tempDir();
  const server = await startHttpServer(root);
  const headers = { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', Accept: ACCEPT };
  const statuses = await Promise.all(
    Array.from({ length: 300 }, async () => {
      const r = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify(INIT) });
      await r.text();
      return r.status;
    }),
  );
  const opened = statuses.filter((s) => s === 200).length;
  const ready = (await (await fetch(server.url.replace(/mcp$/, 'readyz'))).json()) as { sessions: number };
  assert.ok(opened <= 256, `${opened} sessions opened, ${ready.sessions} held`);
  assert.ok(ready.sessions <= 256, `${ready.sessions} sessions held`);
});

test('mcp --http: a connection that never sends a byte is closed by the server (no token needed to hold one)', async () => {
  const root = tempDir();
  const server = await startHttpServer(root);
  const { connect } = await import('node:net');
  const url = new URL(server.url);
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  await new Promise((r) => socket.once('connect', r));
  // Node closes a connection whose headers trickle in after 60 s; one that sends nothing is held for
  // ever, so any local user can hold every descriptor the server has. A generous outer bound:
  const closed = new Promise<boolean>((r) => socket.once('close', () => r(true)));
  let timer: NodeJS.Timeout | undefined;
  const held = new Promise<boolean>((r) => {
    timer = setTimeout(() => r(false), 180_000);
  });
  try {
    assert.equal(await Promise.race([closed, held]), true, 'an idle connection still open after 180 s');
  } finally {
    clearTimeout(timer);
    socket.destroy();
  }
});

test('mcp --http: TLS files that are not PEM are a usage error (exit 2), not an internal error', () => {
  const root = tempDir();
  const tokenFile = path.join(tempDir(), 'token');
  const notPem = path.join(tempDir(), 'not.pem');
  writeFileSync(notPem, 'not a certificate\n');
  const args = ['--http', '--listen', '127.0.0.1:0', '--token-file', tokenFile, '--tls-cert', notPem];
  const r = spawnSync(process.execPath, [...MEWCODE, '--root', root, 'mcp', ...args, '--tls-key', notPem], {
    env: CLEAN_ENV,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.doesNotMatch(r.stderr, /internal error| {4}at /);
});
