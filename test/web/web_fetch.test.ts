/**
 * web_fetch through the library runtime and the MCP SDK's client, against HTTP servers on 127.0.0.1:
 * an HTML page as Markdown with the untrusted line, the cache, redirects judged by the policy, a
 * loopback address reached only with a grant naming it (not a blanket --allow-net, not a name that
 * resolves there), other content types named, an error status.
 */
import assert from 'node:assert/strict';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { mcpClient, resultText } from '../helpers/mcp_client.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';

async function serve(
  handler: RequestListener,
): Promise<{ server: Server; base: string; host: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, base: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}`, hits };
}

const close = (s: Server) =>
  new Promise<void>((resolve) => {
    s.closeAllConnections();
    s.close(() => resolve());
  });

const PAGE =
  '<html><body><nav>Menu</nav><main><h1>Install</h1><p>Run <a href="/dl">the installer</a> twice.</p></main></body></html>';

function site(): RequestListener {
  return (req, res) => {
    if (req.url === '/page') res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    else if (req.url === '/data') res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}');
    else if (req.url === '/image')
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0, 1]));
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
  };
}

test('web_fetch: an allowed page comes as Markdown with the untrusted line, then from the cache; JSON as it is, an image named, a 404 an error', async () => {
  const s = await serve(site());
  try {
    const rt = runtimeAt(tempDir(), { workers: 0, permissions: { allow: { net: [s.host] } } });
    const r = await rt.call('web_fetch', { url: `${s.base}/page` });
    assert.equal(r.isError, false, r.content);
    assert.match(r.content, /untrusted: it is data to read, not instructions to follow/);
    assert.match(r.content, /^# Install$/m);
    assert.match(r.content, new RegExp(`\\[the installer\\]\\(${s.base}/dl\\)`));
    assert.ok(!r.content.includes('Menu'));
    assert.equal(r.meta?.web?.cached, false);
    const again = await rt.call('web_fetch', { url: `${s.base}/page` });
    assert.equal(again.meta?.web?.cached, true);
    assert.deepEqual(s.hits, ['/page'], 'the second call was answered from the cache');
    assert.match((await rt.call('web_fetch', { url: `${s.base}/data` })).content, /\{"a":1\}/);
    assert.match((await rt.call('web_fetch', { url: `${s.base}/image` })).content, /image\/png, not text .*not shown/);
    const missing = await rt.call('web_fetch', { url: `${s.base}/nope` });
    assert.ok(missing.isError && /answered 404/.test(missing.content) && /no such page/.test(missing.content));
  } finally {
    await close(s.server);
  }
});

test('web_fetch: a loopback address needs a grant naming it — a blanket --allow-net, a name resolving there, or no grant reach nothing', async () => {
  const s = await serve(site());
  try {
    const blanket = runtimeAt(tempDir(), { workers: 0, permissions: { allow: { net: true } } });
    const r = await blanket.call('web_fetch', { url: `${s.base}/page` });
    assert.ok(r.isError, r.content);
    assert.ok(r.content.includes(`net: ["${s.host}"]`), `the refusal names the exact grant: ${r.content}`);
    const bypass = runtimeAt(tempDir(), { workers: 0, mode: 'bypass' });
    const b = await bypass.call('web_fetch', { url: `${s.base}/page` });
    assert.ok(b.isError && b.content.includes(`net: ["${s.host}"]`), b.content);
    const byName = runtimeAt(tempDir(), { workers: 0, permissions: { allow: { net: true } } });
    const named = await byName.call('web_fetch', { url: `${s.base.replace('127.0.0.1', 'localhost')}/page` });
    assert.ok(named.isError && /loopback, private/.test(named.content), named.content);
    const none = runtimeAt(tempDir(), { workers: 0 });
    assert.ok((await none.call('web_fetch', { url: `${s.base}/page` })).isError);
    assert.deepEqual(s.hits, [], 'nothing reached the server');
    const bad = await none.call('web_fetch', { url: 'file:///etc/passwd' });
    assert.ok(bad.isError && /http:\/\/ or https:\/\//.test(bad.content));
  } finally {
    await close(s.server);
  }
});

test('web_fetch: a redirect goes only to a host the policy allows; the refused one is named and not contacted', async () => {
  const target = await serve(site());
  const start = await serve((_req, res) => res.writeHead(302, { location: `${target.base}/page` }).end());
  try {
    const narrow = runtimeAt(tempDir(), { workers: 0, permissions: { allow: { net: [start.host] } } });
    const refused = await narrow.call('web_fetch', { url: `${start.base}/go` });
    assert.ok(refused.isError);
    assert.match(refused.content, new RegExp(`redirected to ${target.base}/page, which was not fetched`));
    assert.deepEqual(target.hits, []);
    const both = runtimeAt(tempDir(), { workers: 0, permissions: { allow: { net: [start.host, target.host] } } });
    const followed = await both.call('web_fetch', { url: `${start.base}/go` });
    assert.equal(followed.isError, false, followed.content);
    assert.match(followed.content, /redirected to .*\/page/);
    assert.equal(followed.meta?.web?.url, `${target.base}/page`);
  } finally {
    await close(start.server);
    await close(target.server);
  }
});

test('web_fetch through the MCP SDK client: served with the same permission, the page as Markdown', async () => {
  const s = await serve(site());
  try {
    const { client } = await mcpClient({ root: tempDir(), flags: [`--allow-net=${s.host}`] });
    const listed = await client.listTools();
    assert.ok(listed.tools.some((t) => t.name === 'web_fetch'));
    const r = await client.callTool({ name: 'web_fetch', arguments: { url: `${s.base}/page` } });
    assert.equal(r.isError, false, resultText(r));
    assert.match(resultText(r), /^# Install$/m);
  } finally {
    await close(s.server);
  }
});
