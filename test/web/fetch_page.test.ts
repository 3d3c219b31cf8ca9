/**
 * Fetching a page (lib/web/fetch_page.ts) from HTTP servers on 127.0.0.1: the body and its type,
 * compressed bodies, redirects to a host the caller allows and refused ones named, https refusing to
 * drop to http, the size bound (a compressed bomb stops there), the time bound, and loopback refused
 * unless allowed by address.
 */
import assert from 'node:assert/strict';
import { createServer, type RequestListener, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { test } from 'node:test';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { fetchPage, type PageRequest } from '../../lib/web/fetch_page.ts';

async function serve(handler: RequestListener): Promise<{ server: Server; base: string; host: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, base: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}` };
}

const close = (s: Server) =>
  new Promise<void>((resolve) => {
    s.closeAllConnections();
    s.close(() => resolve());
  });

function request(url: string, o: Partial<PageRequest> = {}): PageRequest {
  return {
    url,
    mayReach: async () => true,
    allowedAddress: (ip) => ip === '127.0.0.1',
    maxBytes: 1 << 20,
    timeoutMs: 30_000,
    signal: new AbortController().signal,
    ...o,
  };
}

test('fetch page: the body, its type and status; gzip, deflate and br bodies come decompressed', async () => {
  const { server, base } = await serve((req, res) => {
    const packed = { '/gzip': gzipSync, '/deflate': deflateSync, '/br': brotliCompressSync }[req.url ?? ''];
    if (packed) {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': (req.url ?? '').slice(1) });
      res.end(packed('zipped words'));
    } else {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<h1>hello</h1>');
    }
  });
  try {
    const page = await fetchPage(request(`${base}/page`));
    assert.ok(page.ok, JSON.stringify(page));
    assert.equal(page.value.body.toString(), '<h1>hello</h1>');
    assert.equal(page.value.contentType, 'text/html; charset=utf-8');
    assert.equal(page.value.status, 200);
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const packed = await fetchPage(request(`${base}/${encoding}`));
      assert.ok(packed.ok && packed.value.body.toString() === 'zipped words', encoding);
    }
  } finally {
    await close(server);
  }
});

test('fetch page: a redirect is followed to a host the caller allows; one to another host is refused and named', async () => {
  const target = await serve((_req, res) => res.end('arrived'));
  const hits: string[] = [];
  const start = await serve((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(302, { location: `${target.base}/there` });
    res.end();
  });
  try {
    const allowed = await fetchPage(request(`${start.base}/go`, { mayReach: async (h) => h === target.host || 'no' }));
    assert.ok(
      allowed.ok && allowed.value.body.toString() === 'arrived' && allowed.value.url === `${target.base}/there`,
    );
    const refused = await fetchPage(
      request(`${start.base}/go`, { mayReach: async (h) => `${h} is not allowed (--allow-net=${h})` }),
    );
    assert.ok(!refused.ok);
    assert.match(
      refused.error,
      new RegExp(`redirected to ${target.base}/there, which was not fetched: ${target.host} is not allowed`),
    );
  } finally {
    await close(start.server);
    await close(target.server);
  }
});

test('fetch page: the body stops at max bytes, also for a compressed bomb; a server that never answers ends at the deadline', async () => {
  const bomb = gzipSync(Buffer.alloc(64 << 20));
  const { server, base } = await serve((req, res) => {
    if (req.url === '/bomb') {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(bomb);
    } else if (req.url === '/big') res.end('x'.repeat(5000));
    // '/never': no answer at all
  });
  try {
    const big = await fetchPage(request(`${base}/big`, { maxBytes: 1000 }));
    assert.ok(big.ok && big.value.body.length === 1000 && big.value.cut);
    const boom = await fetchPage(request(`${base}/bomb`, { maxBytes: 1 << 20 }));
    assert.ok(boom.ok && boom.value.body.length === 1 << 20 && boom.value.cut);
    const never = await fetchPage(request(`${base}/never`, { timeoutMs: 300 }));
    assert.ok(!never.ok && /did not answer within 0.3 s/.test(never.error), JSON.stringify(never));
  } finally {
    await close(server);
  }
});

test('fetch page: a name resolving to loopback is refused and nothing is contacted; the address itself, named in the URL, is reached (the policy judged that address); non-http URLs are refused', async () => {
  let contacted = 0;
  const { server, base } = await serve((_req, res) => {
    contacted++;
    res.end('secret');
  });
  try {
    const named = await fetchPage(
      request(`${base.replace('127.0.0.1', 'localhost')}/`, { allowedAddress: () => false }),
    );
    assert.ok(!named.ok && /loopback, private/.test(named.error), JSON.stringify(named));
    assert.equal(contacted, 0);
    const literal = await fetchPage(request(`${base}/`, { allowedAddress: () => false }));
    assert.ok(literal.ok && literal.value.body.toString() === 'secret');
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'not a url']) {
      const r = await fetchPage(request(url));
      assert.ok(!r.ok, url);
    }
  } finally {
    await close(server);
  }
});

test('fetch page: a redirect target must be http(s), may not drop from https to http, and the sixth hop is refused', async () => {
  const { redirectTarget } = await import('../../lib/web/fetch_page.ts');
  const from = new URL('https://a.example/x');
  const down = redirectTarget(from, 'http://a.example/y', 0);
  assert.ok(!down.ok && /may not drop the encryption/.test(down.error));
  const file = redirectTarget(from, 'file:///etc/passwd', 0);
  assert.ok(!file.ok && /not an http\(s\) URL/.test(file.error));
  assert.ok(!redirectTarget(from, undefined, 0).ok);
  const relative = redirectTarget(from, '../z?q=1', 0);
  assert.ok(relative.ok && relative.value.href === 'https://a.example/z?q=1');
  const sixth = redirectTarget(from, '/again', 5);
  assert.ok(!sixth.ok && /more than 5 times/.test(sixth.error));
  // A chain on the wire ends at the limit too.
  const { server, base } = await serve((req, res) => {
    const n = Number(req.url?.slice(1) ?? 0);
    res.writeHead(302, { location: `/${n + 1}` }).end();
  });
  try {
    const loop = await fetchPage(request(`${base}/0`));
    assert.ok(!loop.ok && /redirected more than 5 times/.test(loop.error), JSON.stringify(loop));
  } finally {
    await close(server);
  }
});

test('fetch page: a compressed body cut off mid-stream, a 101 answer and an unknown encoding each end the call with an error, not at the deadline', async () => {
  const gz = gzipSync(Buffer.from('hello world '.repeat(1000)));
  const server = createNetServer((s) => {
    s.on('error', () => {});
    s.once('data', (d) => {
      const path = String(d).split(' ')[1];
      if (path === '/upgrade')
        s.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n');
      else if (path === '/twice')
        s.end(
          `HTTP/1.1 200 OK\r\ncontent-encoding: gzip, gzip\r\ncontent-length: ${gz.length}\r\n\r\n${gz.toString('latin1')}`,
        );
      else {
        s.write(
          'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-encoding: gzip\r\ncontent-length: 100000\r\n\r\n',
        );
        s.write(gz.subarray(0, 10), () => s.destroy());
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    for (const path of ['/cut', '/upgrade', '/twice']) {
      const r = await fetchPage(request(`${base}${path}`, { timeoutMs: 120_000 }));
      assert.ok(!r.ok, path);
      assert.doesNotMatch(r.error, /did not answer within/, `${path} ran to the deadline`);
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
