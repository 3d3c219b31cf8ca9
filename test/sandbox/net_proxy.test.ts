/**
 * The sandbox's network proxy (lib/sandbox/net_proxy.ts) over real loopback sockets: a plain TCP
 * server on 127.0.0.1 stands in for the listener the sandbox hands the runtime and gives every
 * connection to `proxy.handle`; HTTP servers and a TCP echo server on loopback ports are the far
 * ends, reached by made-up names through a test resolver that counts its lookups. Covered: plain
 * http forwarding (keep-alive, a verdict per request), CONNECT, SOCKS5 with each address type, the
 * order "judge, then resolve" (a refused name is never looked up), internal addresses refused without
 * naming them to the command, slow, silent and malformed clients, the limit, abort and close, and the
 * real curl through each kind. No test waits a guessed time: each waits for the event it needs.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { Agent, createServer as createHttpServer, type Server as HttpServer, request } from 'node:http';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { type TestContext, test } from 'node:test';
import {
  createNetProxy,
  type Lookup,
  type NetAnswer,
  type NetAsk,
  type NetProxy,
  type NetRecord,
} from '../../lib/sandbox/net_proxy.ts';
import { waitFor } from '../helpers/wait.ts';

// ---- scaffolding -------------------------------------------------------------------------------

interface Made {
  servers: (Server | HttpServer)[];
  sockets: Socket[];
  proxies: NetProxy[];
}
const made = new WeakMap<TestContext, Made>();

/** What a test made — servers (with every connection they accept), sockets, proxies — closed when it ends. */
function closing(t: TestContext): Made {
  const known = made.get(t);
  if (known) return known;
  const m: Made = { servers: [], sockets: [], proxies: [] };
  made.set(t, m);
  t.after(async () => {
    for (const p of m.proxies) p.close();
    for (const s of m.sockets) s.destroy();
    await Promise.all(m.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  });
  return m;
}

/** `server` listening on a loopback port; it and its connections are closed with the test. */
async function listen(t: TestContext, server: Server | HttpServer, host = '127.0.0.1'): Promise<number> {
  const m = closing(t);
  m.servers.push(server);
  server.on('connection', (s: Socket) => m.sockets.push(s));
  server.listen(0, host);
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** An HTTP server answering what it was asked: `name path host=… seen=<header names>`. */
async function upstream(t: TestContext, name: string, host = '127.0.0.1'): Promise<number> {
  const server = createHttpServer((req, res) => {
    const seen = Object.keys(req.headers).sort().join(',');
    res.setHeader('x-upstream', name);
    res.end(`${name} ${req.method} ${req.url} host=${req.headers.host} seen=${seen}`);
  });
  return listen(t, server, host);
}

/** A TCP server sending back what it reads, ending when its client ends. */
async function echo(t: TestContext): Promise<{ port: number; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer({ allowHalfOpen: true }, (s) => {
    sockets.push(s);
    s.on('error', () => {});
    s.pipe(s);
  });
  return { port: await listen(t, server), sockets };
}

/** A port nothing listens on (one just closed). */
async function deadPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const denial = (a: NetAsk) =>
  `${a.host}:${a.port} is not in --allow-net; add --allow-net=${a.host}:${a.port} to allow it`;

interface Setup {
  /** Hosts allowed (any port). */
  allow?: string[];
  /** Loopback or private addresses an allowed request may reach. */
  local?: string[];
  /** Names the test resolver knows. */
  names?: Record<string, string[]>;
  decide?: (a: NetAsk) => Promise<NetAnswer>;
  signal?: AbortSignal;
  handshakeMs?: number;
  maxConnections?: number;
}

/** A proxy behind a loopback listener, with its policy, resolver and records. */
async function start(t: TestContext, o: Setup = {}) {
  const { proxies } = closing(t);
  const records: NetRecord[] = [];
  const asked: NetAsk[] = [];
  const lookups: string[] = [];
  const resolve: Lookup = async (host) => {
    lookups.push(host);
    const found = o.names?.[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const local = new Set(o.local ?? ['127.0.0.1', '::1']);
  const decide =
    o.decide ??
    (async (a: NetAsk): Promise<NetAnswer> =>
      o.allow?.includes(a.host)
        ? { allow: true, allowedAddress: (ip) => local.has(ip) }
        : { allow: false, why: denial(a) });
  const proxy = createNetProxy({ resolve, handshakeMs: o.handshakeMs, maxConnections: o.maxConnections });
  proxies.push(proxy);
  const ctx = {
    decide: async (a: NetAsk) => {
      asked.push(a);
      return decide(a);
    },
    record: (r: NetRecord) => records.push(r),
    signal: o.signal,
  };
  // Stands in for the listener the sandbox hands the runtime.
  const listener = createServer((s) => proxy.handle(s, ctx));
  return { proxy, port: await listen(t, listener), records, asked, lookups };
}

/**
 * A client connection with reads of exact sizes, and its close as a promise. Like most clients it
 * closes when the other side does, unless `halfOpen` (then it may read on after ending its side).
 */
function wire(t: TestContext, port: number, o: { host?: string; halfOpen?: boolean } = {}) {
  const socket = connect({ port, host: o.host ?? '127.0.0.1', allowHalfOpen: o.halfOpen ?? false });
  closing(t).sockets.push(socket);
  socket.on('error', () => {});
  let buf = Buffer.alloc(0);
  let ended = false;
  let wake = () => {};
  socket.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    wake();
  });
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      ended = true;
      wake();
      resolve();
    }),
  );
  socket.on('end', () => {
    ended = true;
    wake();
  });
  /** Waits until `ready(buf)` gives a length to take (or the connection ends: then it fails). */
  async function until(ready: (b: Buffer) => number | undefined, what: string): Promise<Buffer> {
    for (;;) {
      const n = ready(buf);
      if (n !== undefined) {
        const out = buf.subarray(0, n);
        buf = buf.subarray(n);
        return out;
      }
      if (ended) throw new Error(`the connection ended before ${what}; it had sent ${JSON.stringify(String(buf))}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  }
  return {
    socket,
    closed,
    send: (b: string | Buffer | number[]) => socket.write(Array.isArray(b) ? Buffer.from(b) : b),
    take: (n: number) => until((b) => (b.length >= n ? n : undefined), `${n} bytes`),
    /** One HTTP response: head and a body of its content-length (none when it has none). */
    async response(): Promise<{ head: string; status: number; body: string }> {
      const head = String(
        await until((b) => {
          const i = b.indexOf('\r\n\r\n');
          return i < 0 ? undefined : i + 4;
        }, 'a response head'),
      );
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      const body = String(await until((b) => (b.length >= length ? length : undefined), 'a response body'));
      return { head, status: Number(head.split(' ')[1]), body };
    },
    /** Everything until the connection closes. */
    async rest(): Promise<string> {
      await closed;
      return String(buf);
    },
  };
}

const get = (url: string, host: string, more = '') => `GET ${url} HTTP/1.1\r\nHost: ${host}\r\n${more}\r\n`;

/** A SOCKS5 greeting and CONNECT request for a domain name, an IPv4 or an IPv6 address. */
function socksRequest(host: string | number[], port: number, command = 1): number[] {
  const p = [port >> 8, port & 255];
  if (typeof host === 'string') return [5, 1, 0, 5, command, 0, 3, Buffer.byteLength(host), ...Buffer.from(host), ...p];
  return [5, 1, 0, 5, command, 0, host.length === 4 ? 1 : 4, ...host, ...p];
}

/** The method choice and the reply's code of a SOCKS5 exchange. */
async function socksReply(w: ReturnType<typeof wire>): Promise<number> {
  assert.deepEqual([...(await w.take(2))], [5, 0], 'no authentication chosen');
  const reply = await w.take(10);
  assert.equal(reply[0], 5);
  return reply[1] as number;
}

/** A record, its time checked and left out. */
function withoutMs(r: NetRecord | undefined): Omit<NetRecord, 'ms'> {
  assert.ok(r, 'a record');
  assert.ok(Number.isFinite(r.ms) && r.ms >= 0, `ms: ${r.ms}`);
  const { ms: _, ...rest } = r;
  return rest;
}

// ---- plain http forwarding ----------------------------------------------------------------------

test('net proxy, http: an allowed host is forwarded to its checked address with the target as Host and no hop-by-hop fields; a refused one gets 403 naming host and why', async (t) => {
  const a = await upstream(t, 'A');
  const p = await start(t, { allow: ['allowed.test'], names: { 'allowed.test': ['127.0.0.1'] } });
  const w = wire(t, p.port);
  w.send(
    get(
      `http://allowed.test:${a}/path?q=1`,
      'other.test',
      'Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eA==\r\nKeep-Alive: 5\r\nConnection: keep-alive, x-private\r\nX-Private: 1\r\nX-Kept: 1\r\n',
    ),
  );
  const ok = await w.response();
  assert.equal(ok.status, 200);
  assert.match(ok.head, /x-upstream: A/i);
  assert.equal(ok.body, `A GET /path?q=1 host=allowed.test:${a} seen=connection,host,x-kept`);
  assert.deepEqual(withoutMs(p.records[0]), {
    via: 'http',
    host: 'allowed.test',
    port: a,
    allowed: true,
    addresses: ['127.0.0.1'],
  });
  w.send(get('http://secret.test:8080/x', 'secret.test:8080'));
  const no = await w.response();
  assert.equal(no.status, 403);
  assert.match(no.head, /\r\nx-mewcode-denied: secret\.test:8080\r\n/i);
  assert.match(no.head, /\r\ncontent-type: text\/plain/i);
  assert.equal(
    no.body,
    'MewCode sandbox: secret.test:8080 is not in --allow-net; add --allow-net=secret.test:8080 to allow it\n',
  );
  assert.deepEqual(withoutMs(p.records[1]), {
    via: 'http',
    host: 'secret.test',
    port: 8080,
    allowed: false,
    why: 'secret.test:8080 is not in --allow-net; add --allow-net=secret.test:8080 to allow it',
  });
  assert.equal(p.records.length, 2);
});

test('net proxy, http: one keep-alive connection asks for two hosts — each request judged on its own, the connection kept', async (t) => {
  const a = await upstream(t, 'A');
  const b = await upstream(t, 'B');
  const p = await start(t, { allow: ['a.test'], names: { 'a.test': ['127.0.0.1'], 'b.test': ['127.0.0.1'] } });
  const w = wire(t, p.port);
  w.send(get(`http://a.test:${a}/1`, `a.test:${a}`));
  assert.match((await w.response()).body, /^A GET \/1 /);
  w.send(get(`http://b.test:${b}/2`, `b.test:${b}`));
  assert.equal((await w.response()).status, 403);
  w.send(get(`http://a.test:${a}/3`, `a.test:${a}`));
  assert.match((await w.response()).body, /^A GET \/3 /);
  assert.deepEqual(
    p.records.map((r) => [r.host, r.port, r.allowed]),
    [
      ['a.test', a, true],
      ['b.test', b, false],
      ['a.test', a, true],
    ],
  );
  assert.equal(p.proxy.open, 1, 'one client connection all along');
});

test('net proxy, http: hosts are judged lower case without brackets or trailing dot; origin-form, https:// and bad ports get 400 and are not recorded', async (t) => {
  const a = await upstream(t, 'A');
  const p = await start(t, { allow: ['allowed.test'], names: { 'allowed.test': ['127.0.0.1'] } });
  const w = wire(t, p.port);
  w.send(get(`http://ALLOWED.Test.:${a}/`, 'x'));
  assert.equal((await w.response()).status, 200);
  assert.deepEqual(p.asked, [{ host: 'allowed.test', port: a, via: 'http' }]);
  w.send(get('/relative', 'allowed.test'));
  const relative = await w.response();
  assert.equal(relative.status, 400);
  assert.match(relative.body, /absolute http:\/\/ URIs.*CONNECT/);
  w.send(get('https://allowed.test/', 'allowed.test'));
  const tls = await w.response();
  assert.equal(tls.status, 400);
  assert.match(tls.body, /use CONNECT/);
  w.send(get('http://allowed.test:0/', 'allowed.test'));
  assert.equal((await w.response()).status, 400);
  assert.equal(p.records.length, 1, 'malformed requests are no connection attempts');
});

test('net proxy, http: with Node’s own keep-alive client, a streamed (chunked) answer and a POST body pass through, one connection for all', async (t) => {
  const server = createHttpServer((req, res) => {
    if (req.url === '/stream') {
      res.write('one,');
      setImmediate(() => res.end('two'));
    } else req.pipe(res);
  });
  const port = await listen(t, server);
  const p = await start(t, { allow: ['a.test'], names: { 'a.test': ['127.0.0.1'] } });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  const ask = (method: string, path: string, body?: string) =>
    new Promise<{ status: number; body: string; reused: boolean }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: p.port, method, path: `http://a.test:${port}${path}`, agent },
        (res) => {
          let text = '';
          res.on('data', (d) => {
            text += d;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, reused: req.reusedSocket }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  assert.deepEqual(await ask('GET', '/stream'), { status: 200, body: 'one,two', reused: false });
  assert.deepEqual(await ask('POST', '/echo', 'x'.repeat(100_000)), {
    status: 200,
    body: 'x'.repeat(100_000),
    reused: true,
  });
  assert.deepEqual(await ask('GET', '/stream'), { status: 200, body: 'one,two', reused: true });
  assert.equal(p.records.length, 3);
});

// ---- CONNECT ------------------------------------------------------------------------------------

test('net proxy, CONNECT: allowed — 200, then a tunnel both ways, bytes sent with the request included, half-close passed on; refused — 403 with the words in the status line and body, then closed', async (t) => {
  const e = await echo(t);
  const p = await start(t, { allow: ['echo.test'], names: { 'echo.test': ['127.0.0.1'] } });
  const w = wire(t, p.port, { halfOpen: true });
  w.send(`CONNECT echo.test:${e.port} HTTP/1.1\r\nHost: echo.test:${e.port}\r\n\r\nearly`);
  assert.equal(String(await w.take(39)), 'HTTP/1.1 200 Connection Established\r\n\r\n');
  assert.equal(String(await w.take(5)), 'early');
  w.send('later');
  assert.equal(String(await w.take(5)), 'later');
  w.socket.end('last');
  assert.equal(await w.rest(), 'last', 'the echo answers after the client has ended its side, and the tunnel closes');
  assert.deepEqual(withoutMs(p.records[0]), {
    via: 'connect',
    host: 'echo.test',
    port: e.port,
    allowed: true,
    addresses: ['127.0.0.1'],
  });

  // A client that ends its side right after its request (as `nc -N` does) still gets its tunnel, the
  // end passed through it.
  const quick = wire(t, p.port, { halfOpen: true });
  quick.socket.end(`CONNECT echo.test:${e.port} HTTP/1.1\r\n\r\nbye`);
  assert.equal(await quick.rest(), 'HTTP/1.1 200 Connection Established\r\n\r\nbye');

  const no = wire(t, p.port);
  no.send('CONNECT secret.test:443 HTTP/1.1\r\nHost: secret.test:443\r\n\r\n');
  const text = await no.rest();
  assert.match(
    text,
    /^HTTP\/1\.1 403 MewCode sandbox: secret\.test:443 is not in --allow-net; add --allow-net=secret\.test:443 to allow it\r\n/,
  );
  assert.match(text, /\r\nx-mewcode-denied: secret\.test:443\r\n/);
  assert.match(text, /\r\n\r\nMewCode sandbox: secret\.test:443 is not in --allow-net/);
  assert.equal(p.records[2]?.allowed, false);
});

test('net proxy: hosts are judged as the policy reads them — [::1] as ::1, 127.1 as 127.0.0.1, a Unicode name as punycode; a target without a port or with a bad name is a 400 or 0x01, and not recorded', async (t) => {
  const p = await start(t, { allow: [] });
  for (const target of ['[::1]:8443', '127.1:80']) {
    const w = wire(t, p.port);
    w.send(`CONNECT ${target} HTTP/1.1\r\n\r\n`);
    assert.match(await w.rest(), /^HTTP\/1\.1 403 .*\r\nx-mewcode-denied: (\[::1\]:8443|127\.0\.0\.1:80)\r\n/s);
  }
  const s = wire(t, p.port);
  s.send(socksRequest('BÜCHER.test.', 443));
  assert.equal(await socksReply(s), 0x02);
  assert.deepEqual(
    p.asked.map((q) => `${q.via} ${q.host} ${q.port}`),
    ['connect ::1 8443', 'connect 127.0.0.1 80', 'socks5 xn--bcher-kva.test 443'],
  );
  for (const target of ['example.test', 'a/b.test:80', 'user@x.test:80', 'x.test:99999']) {
    const bad = wire(t, p.port);
    bad.send(`CONNECT ${target} HTTP/1.1\r\n\r\n`);
    assert.match(await bad.rest(), /^HTTP\/1\.1 400 /, target);
  }
  for (const name of ['a b.test', 'x.test/evil', '']) {
    const bad = wire(t, p.port);
    bad.send(socksRequest(name, 80));
    assert.equal(await socksReply(bad), 0x01, JSON.stringify(name));
  }
  assert.equal(p.records.length, 3);
});

// ---- SOCKS5 -------------------------------------------------------------------------------------

/** Whether this machine has ::1 (a container may not); when it has not, that must be the reason. */
async function loopbackV6(t: TestContext): Promise<boolean> {
  const probe = createServer();
  try {
    probe.listen(0, '::1');
    await once(probe, 'listening');
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return true;
  } catch (e) {
    assert.ok(['EADDRNOTAVAIL', 'EAFNOSUPPORT'].includes((e as NodeJS.ErrnoException).code ?? ''), String(e));
    t.diagnostic(
      `no ::1 on this machine (${(e as NodeJS.ErrnoException).code}): the IPv6 address type is checked up to the verdict only`,
    );
    return false;
  }
}

test('net proxy, SOCKS5: a domain name, an IPv4 and an IPv6 address — allowed ones tunnelled, refused ones answered 0x02 and recorded', async (t) => {
  const a = await upstream(t, 'A');
  const v6 = await loopbackV6(t);
  const a6 = v6 ? await upstream(t, 'A6', '::1') : 9;
  const p = await start(t, { allow: ['allowed.test', '127.0.0.1', '::1'], names: { 'allowed.test': ['127.0.0.1'] } });
  const through = async (host: string | number[], port: number) => {
    const w = wire(t, p.port);
    w.send(socksRequest(host, port));
    const code = await socksReply(w);
    if (code !== 0) return { code, body: await w.rest() };
    w.send(get('/via-socks', 'x', 'Connection: close\r\n'));
    return { code, body: (await w.response()).body };
  };
  assert.deepEqual(await through('Allowed.Test.', a), {
    code: 0,
    body: `A GET /via-socks host=x seen=connection,host`,
  });
  assert.deepEqual(await through([127, 0, 0, 1], a), { code: 0, body: `A GET /via-socks host=x seen=connection,host` });
  const loop6 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
  if (v6)
    assert.deepEqual(await through(loop6, a6), { code: 0, body: `A6 GET /via-socks host=x seen=connection,host` });
  else assert.equal((await through(loop6, a6)).code, 0x04, 'allowed, but nothing to reach');
  assert.deepEqual(await through('secret.test', 443), { code: 0x02, body: '' });
  assert.deepEqual(await through([10, 1, 2, 3], 22), { code: 0x02, body: '' });
  assert.deepEqual(await through([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7], 80), {
    code: 0x02,
    body: '',
  });
  assert.deepEqual(
    p.asked.map((q) => `${q.via} ${q.host} ${q.port}`),
    [
      `socks5 allowed.test ${a}`,
      `socks5 127.0.0.1 ${a}`,
      `socks5 ::1 ${a6}`,
      'socks5 secret.test 443',
      'socks5 10.1.2.3 22',
      'socks5 2001:db8::7 80',
    ],
  );
  assert.deepEqual(withoutMs(p.records[0]), {
    via: 'socks5',
    host: 'allowed.test',
    port: a,
    allowed: true,
    addresses: ['127.0.0.1'],
  });
  assert.deepEqual(withoutMs(p.records[3]), {
    via: 'socks5',
    host: 'secret.test',
    port: 443,
    allowed: false,
    why: denial({ host: 'secret.test', port: 443, via: 'socks5' }),
  });
});

test('net proxy, SOCKS5: BIND and UDP ASSOCIATE get 0x07, an unknown address type 0x08, port 0 a general failure — none asked about or recorded; no offered method without authentication gets 0xFF', async (t) => {
  const p = await start(t, { allow: ['allowed.test'] });
  for (const [request, code] of [
    [socksRequest('allowed.test', 80, 2), 0x07],
    [socksRequest('allowed.test', 80, 3), 0x07],
    [[5, 1, 0, 5, 1, 0, 9, 1, 2, 3, 4], 0x08],
    [socksRequest('allowed.test', 0), 0x01],
  ] as const) {
    const w = wire(t, p.port);
    w.send([...request]);
    assert.equal(await socksReply(w), code);
    await w.closed;
  }
  const auth = wire(t, p.port);
  auth.send([5, 1, 2]); // username/password only
  assert.deepEqual([...(await auth.take(2))], [5, 0xff]);
  await auth.closed;
  assert.equal(p.asked.length, 0);
  assert.equal(p.records.length, 0);
});

// ---- judging before resolving, and the addresses checked ----------------------------------------

test('net proxy: a refused name is never looked up, by any of the three ways in; an allowed one is looked up once per attempt', async (t) => {
  const a = await upstream(t, 'A');
  const p = await start(t, {
    allow: ['allowed.test'],
    names: { 'allowed.test': ['127.0.0.1'], 'secret.test': ['127.0.0.1'] },
  });
  const h = wire(t, p.port);
  h.send(get('http://secret.test/', 'secret.test'));
  assert.equal((await h.response()).status, 403);
  const c = wire(t, p.port);
  c.send('CONNECT secret.test:443 HTTP/1.1\r\n\r\n');
  assert.match(await c.rest(), /^HTTP\/1\.1 403 /);
  const s = wire(t, p.port);
  s.send(socksRequest('secret.test', 443));
  assert.equal(await socksReply(s), 0x02);
  assert.deepEqual(p.lookups, []);
  h.send(get(`http://allowed.test:${a}/`, 'allowed.test'));
  assert.equal((await h.response()).status, 200);
  assert.deepEqual(p.lookups, ['allowed.test']);
  assert.equal(p.records.length, 4);
});

test('net proxy: an allowed name resolving to a private, metadata or mapped loopback address is refused without the address in what the command reads; the record keeps it', async (t) => {
  const p = await start(t, {
    allow: ['inner.test', 'meta.test', 'mapped.test'],
    local: [],
    names: { 'inner.test': ['10.0.0.5'], 'meta.test': ['169.254.169.254'], 'mapped.test': ['::ffff:127.0.0.1'] },
  });
  const w = wire(t, p.port);
  for (const [host, address] of [
    ['inner.test', '10.0.0.5'],
    ['meta.test', '169.254.169.254'],
    ['mapped.test', '::ffff:127.0.0.1'],
  ] as const) {
    w.send(get(`http://${host}:8080/`, host));
    const r = await w.response();
    assert.equal(r.status, 403);
    assert.equal(
      r.body,
      `MewCode sandbox: ${host} resolves to a loopback, private or link-local address; allow that address itself with --allow-net=ADDRESS:8080\n`,
    );
    assert.ok(!r.head.includes(address) && !r.body.includes(address));
    const c = wire(t, p.port);
    c.send(`CONNECT ${host}:443 HTTP/1.1\r\n\r\n`);
    const text = await c.rest();
    assert.match(text, /^HTTP\/1\.1 403 MewCode sandbox: .* resolves to a loopback/);
    assert.ok(!text.includes(address), text);
  }
  assert.equal(p.records.length, 6);
  for (const r of p.records) {
    assert.equal(r.allowed, false);
    assert.equal(r.addresses, undefined);
  }
  assert.match(p.records[0]?.detail ?? '', /10\.0\.0\.5/);
  assert.match(p.records[2]?.detail ?? '', /169\.254\.169\.254/);
  assert.match(p.records[4]?.detail ?? '', /::ffff:127\.0\.0\.1/);
});

test('net proxy: loopback is reached only when the answer allows that address; a literal is judged as itself', async (t) => {
  const a = await upstream(t, 'A');
  const p = await start(t, { allow: ['127.0.0.1', 'named.test'], local: [], names: { 'named.test': ['127.0.0.1'] } });
  const w = wire(t, p.port);
  w.send(get(`http://127.0.0.1:${a}/`, 'x'));
  const literal = await w.response();
  assert.equal(literal.status, 403);
  assert.equal(
    literal.body,
    `MewCode sandbox: 127.0.0.1 is a loopback, private or link-local address; allow that address itself with --allow-net=127.0.0.1:${a}\n`,
  );
  w.send(get(`http://named.test:${a}/`, 'x'));
  assert.equal((await w.response()).status, 403);

  const q = await start(t, {
    allow: ['127.0.0.1', 'named.test'],
    local: ['127.0.0.1'],
    names: { 'named.test': ['127.0.0.1'] },
  });
  const v = wire(t, q.port);
  v.send(get(`http://127.0.0.1:${a}/`, 'x'));
  assert.equal((await v.response()).status, 200);
  v.send(get(`http://named.test:${a}/`, 'x'));
  assert.equal((await v.response()).status, 200);
});

test('net proxy: a name that does not resolve was allowed but is unreachable — 502, SOCKS 0x04, recorded as allowed with why in the detail', async (t) => {
  const p = await start(t, { allow: ['nowhere.test'] });
  const w = wire(t, p.port);
  w.send(get('http://nowhere.test/', 'nowhere.test'));
  const r = await w.response();
  assert.equal(r.status, 502);
  assert.match(r.body, /nowhere\.test could not be resolved \(ENOTFOUND\)/);
  const s = wire(t, p.port);
  s.send(socksRequest('nowhere.test', 80));
  assert.equal(await socksReply(s), 0x04);
  assert.deepEqual(withoutMs(p.records[0]), {
    via: 'http',
    host: 'nowhere.test',
    port: 80,
    allowed: true,
    detail: 'nowhere.test could not be resolved (ENOTFOUND)',
  });
});

test('net proxy: an answer that takes its time (a user asked) holds the connection, then goes through; a policy that throws refuses', async (t) => {
  const a = await upstream(t, 'A');
  let answer: (x: NetAnswer) => void = () => {};
  let asked: () => void = () => {};
  const askedYet = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const p = await start(t, {
    names: { 'slow.test': ['127.0.0.1'] },
    decide: (q) => {
      if (q.host === 'broken.test') throw new Error('no policy today');
      asked();
      return new Promise((resolve) => {
        answer = resolve;
      });
    },
    handshakeMs: 200,
  });
  const w = wire(t, p.port);
  w.send(get(`http://slow.test:${a}/`, 'x'));
  await askedYet;
  // Longer than the handshake time, without guessing a time: a silent client connected after the
  // question is closed by its own handshake timer, which fires after the waiting one's would have.
  const silent = wire(t, p.port);
  await silent.closed;
  assert.equal(p.records.length, 0);
  answer({ allow: true, allowedAddress: (ip) => ip === '127.0.0.1' });
  assert.match((await w.response()).body, /^A GET \/ /);
  w.send(get('http://broken.test/', 'x'));
  const r = await w.response();
  assert.equal(r.status, 403);
  assert.match(r.body, /MewCode sandbox: the network policy failed \(no policy today\)/);
});

test('net proxy: a client that leaves while its verdict is pending is still recorded once, and nothing is looked up or dialed for it', async (t) => {
  let answer: (x: NetAnswer) => void = () => {};
  const p = await start(t, {
    names: { 'late.test': ['127.0.0.1'] },
    decide: () =>
      new Promise((resolve) => {
        answer = resolve;
      }),
  });
  const w = wire(t, p.port);
  w.send(socksRequest('late.test', 80));
  await w.take(2);
  await waitFor(() => p.asked.length === 1, 'the question');
  // A reset: a plain close would read as a half-close, after which a client may still want its reply.
  w.socket.resetAndDestroy();
  await waitFor(() => p.proxy.open === 0, 'the proxy to see the client gone');
  answer({ allow: true, allowedAddress: () => true });
  await waitFor(() => p.records.length === 1, 'the record');
  assert.deepEqual(withoutMs(p.records[0]), {
    via: 'socks5',
    host: 'late.test',
    port: 80,
    allowed: true,
    detail: 'the command closed the connection before it was made',
  });
  assert.deepEqual(p.lookups, []);
});

// ---- slow, silent, malformed and surplus clients ------------------------------------------------

test('net proxy: a client that sends nothing, half a request line, half a SOCKS handshake, or nothing more after an answer, is closed after the handshake time', async (t) => {
  const a = await upstream(t, 'A');
  const p = await start(t, { allow: ['allowed.test'], names: { 'allowed.test': ['127.0.0.1'] }, handshakeMs: 200 });
  const silent = wire(t, p.port);
  const half = wire(t, p.port);
  half.send('GET http://allowed.test/ HTTP/1.1\r\nHost: allo');
  const socks = wire(t, p.port);
  socks.send([5, 1, 0, 5, 1]);
  const idle = wire(t, p.port);
  idle.send(get(`http://allowed.test:${a}/`, 'x'));
  assert.equal((await idle.response()).status, 200);
  await Promise.all([silent.closed, half.closed, socks.closed, idle.closed]);
  assert.equal(await silent.rest(), '');
  assert.equal(p.records.length, 1);
  await waitFor(() => p.proxy.open === 0, 'the proxy to see its side closed');
});

test('net proxy: garbage, a TLS hello, SOCKS4, a cut SOCKS greeting and a huge header end in a clean close or a 4xx, never a throw', async (t) => {
  const p = await start(t, { allow: ['allowed.test'] });
  const answers: string[] = [];
  for (const bytes of [
    Buffer.from('\x00\x01\x02 not http at all\r\n\r\n'),
    Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03]),
    Buffer.from([4, 1, 0, 80, 127, 0, 0, 1, 0]),
    Buffer.from(`GET http://allowed.test/ HTTP/1.1\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`),
  ]) {
    const w = wire(t, p.port);
    w.send(bytes);
    answers.push((await w.rest()).split('\r\n')[0] ?? '');
  }
  assert.match(answers[0] ?? '', /^HTTP\/1\.1 400 /);
  assert.match(answers[1] ?? '', /^HTTP\/1\.1 400 /);
  assert.equal(answers[2], '', 'SOCKS4 is closed without a word');
  assert.match(answers[3] ?? '', /^HTTP\/1\.1 431 /);
  const cut = wire(t, p.port, { halfOpen: true });
  cut.send([5, 3, 0]);
  cut.socket.end();
  assert.equal(await cut.rest(), '');
  const empty = wire(t, p.port, { halfOpen: true });
  empty.socket.end();
  await empty.closed;
  assert.equal(p.records.length, 0);
  await waitFor(() => p.proxy.open === 0, 'the proxy to see its side closed');
});

test('net proxy: beyond maxConnections a connection is refused in its own protocol (503, SOCKS 0x01) and not judged; room again once one closes', async (t) => {
  const e = await echo(t);
  const p = await start(t, { allow: ['echo.test'], names: { 'echo.test': ['127.0.0.1'] }, maxConnections: 1 });
  const first = wire(t, p.port);
  first.send(`CONNECT echo.test:${e.port} HTTP/1.1\r\n\r\n`);
  await first.take(39);
  assert.equal(p.proxy.open, 1);
  const h = wire(t, p.port);
  h.send(`CONNECT echo.test:${e.port} HTTP/1.1\r\n\r\n`);
  assert.match(await h.rest(), /^HTTP\/1\.1 503 .*1 connections are open already/s);
  const s = wire(t, p.port);
  s.send(socksRequest('echo.test', e.port));
  assert.equal(await socksReply(s), 0x01);
  assert.equal(p.asked.length, 1);
  first.socket.destroy();
  await waitFor(() => p.proxy.open === 0, 'the proxy to see the first connection closed');
  const again = wire(t, p.port);
  again.send(`CONNECT echo.test:${e.port} HTTP/1.1\r\n\r\n`);
  assert.equal(String(await again.take(39)), 'HTTP/1.1 200 Connection Established\r\n\r\n');
});

// ---- the end of a command, of the proxy, and of the far end -------------------------------------

test('net proxy: the command ending (its signal aborted) destroys its live tunnels at both ends; another command’s stay', async (t) => {
  const e = await echo(t);
  const ending = new AbortController();
  const p = await start(t, { allow: ['echo.test'], names: { 'echo.test': ['127.0.0.1'] }, signal: ending.signal });
  const q = await start(t, { allow: ['echo.test'], names: { 'echo.test': ['127.0.0.1'] } });
  const tunnel = async (port: number) => {
    const w = wire(t, port);
    w.send(`CONNECT echo.test:${e.port} HTTP/1.1\r\n\r\nping`);
    await w.take(39 + 4);
    return w;
  };
  const mine = [await tunnel(p.port), await tunnel(p.port)];
  const other = await tunnel(q.port);
  assert.equal(e.sockets.length, 3);
  ending.abort();
  await Promise.all([
    ...mine.map((w) => w.closed),
    once(e.sockets[0] as Socket, 'close'),
    once(e.sockets[1] as Socket, 'close'),
  ]);
  await waitFor(() => p.proxy.open === 0, 'the proxy to see its side closed');
  other.send('still');
  assert.equal(String(await other.take(5)), 'still');
  // A connection arriving after the end is closed at once.
  const late = wire(t, p.port);
  await late.closed;
});

test('net proxy: close() destroys every connection — tunnels, keep-alive clients, ones waiting for a verdict — and refuses new ones', async (t) => {
  const e = await echo(t);
  const a = await upstream(t, 'A');
  const p = await start(t, {
    names: { 'echo.test': ['127.0.0.1'], 'a.test': ['127.0.0.1'] },
    decide: async (q) =>
      q.host === 'wait.test' ? new Promise<NetAnswer>(() => {}) : { allow: true, allowedAddress: () => true },
  });
  const tunnel = wire(t, p.port);
  tunnel.send(`CONNECT echo.test:${e.port} HTTP/1.1\r\n\r\n`);
  await tunnel.take(39);
  const kept = wire(t, p.port);
  kept.send(get(`http://a.test:${a}/`, 'x'));
  await kept.response();
  const waiting = wire(t, p.port);
  waiting.send('CONNECT wait.test:443 HTTP/1.1\r\n\r\n');
  await waitFor(() => p.asked.some((q) => q.host === 'wait.test'), 'the question for wait.test');
  assert.equal(p.proxy.open, 3);
  p.proxy.close();
  assert.equal(p.proxy.open, 0);
  await Promise.all([tunnel.closed, kept.closed, waiting.closed, once(e.sockets[0] as Socket, 'close')]);
  const late = wire(t, p.port);
  await late.closed;
});

test('net proxy: a far end refusing the connection is a 502 (CONNECT too) and SOCKS 0x05, recorded as allowed with the error in the detail', async (t) => {
  const dead = await deadPort();
  const p = await start(t, { allow: ['dead.test'], names: { 'dead.test': ['127.0.0.1'] } });
  const w = wire(t, p.port);
  w.send(get(`http://dead.test:${dead}/`, 'x'));
  const r = await w.response();
  assert.equal(r.status, 502);
  assert.equal(r.body, `MewCode proxy: dead.test:${dead} could not be reached (ECONNREFUSED)\n`);
  const c = wire(t, p.port);
  c.send(`CONNECT dead.test:${dead} HTTP/1.1\r\n\r\n`);
  assert.match(await c.rest(), /^HTTP\/1\.1 502 /);
  const s = wire(t, p.port);
  s.send(socksRequest('dead.test', dead));
  assert.equal(await socksReply(s), 0x05);
  assert.equal(p.records.length, 3);
  for (const rec of p.records) {
    assert.equal(rec.allowed, true);
    assert.deepEqual(rec.addresses, ['127.0.0.1']);
    assert.match(rec.detail ?? '', /ECONNREFUSED 127\.0\.0\.1/);
  }
});

// ---- the real curl through each kind ------------------------------------------------------------

/** curl run with only the proxy variables given (and an empty no_proxy: a user's would bypass the proxy). */
function curl(args: string[], proxy: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', no_proxy: '', NO_PROXY: '', ...proxy };
  return new Promise((resolve, reject) => {
    execFile('curl', ['-sS', '--max-time', '60', ...args], { env }, (e, out, err) => {
      // No exit code (curl missing, say): CI installs curl, so that is a broken machine, not a skip.
      if (e && typeof e.code !== 'number') reject(e);
      else resolve({ code: e ? Number(e.code) : 0, out, err });
    });
  });
}

test('net proxy with curl: http_proxy forwarding, CONNECT tunnels (-p, and https_proxy for https), socks5h:// and --socks5-hostname — allowed hosts answer, refused ones fail', async (t) => {
  const a = await upstream(t, 'A');
  const p = await start(t, {
    allow: ['allowed.test'],
    names: { 'allowed.test': ['127.0.0.1'], 'secret.test': ['127.0.0.1'] },
  });
  const http = { http_proxy: `http://127.0.0.1:${p.port}` };
  const socks = { all_proxy: `socks5h://127.0.0.1:${p.port}` };
  const ok = `A GET /c host=allowed.test:${a}`;
  const allowed = `http://allowed.test:${a}/c`;
  const secret = `http://secret.test:${a}/c`;

  const forwarded = await curl(['-f', allowed], http);
  assert.equal(forwarded.code, 0, forwarded.err);
  assert.match(forwarded.out, new RegExp(`^${ok} `));
  const refused = await curl([secret], http);
  assert.equal(refused.code, 0, 'without -f curl prints the refusal');
  assert.match(refused.out, /^MewCode sandbox: secret\.test:\d+ is not in --allow-net/);
  assert.equal((await curl(['-f', secret], http)).code, 22);

  const tunnelled = await curl(['-p', allowed], http);
  assert.equal(tunnelled.code, 0, tunnelled.err);
  assert.match(tunnelled.out, new RegExp(`^${ok} `));
  const noTunnel = await curl(['-p', secret], http);
  assert.equal(noTunnel.code, 56);
  assert.match(noTunnel.err, /CONNECT tunnel failed, response 403/);

  // https_proxy makes curl tunnel https URLs: the far end here speaks plain HTTP, so the TLS
  // handshake inside the tunnel fails (35) — after the tunnel was made; a refused host never gets one.
  const https = { https_proxy: `http://127.0.0.1:${p.port}` };
  assert.equal((await curl(['-k', allowed.replace('http:', 'https:')], https)).code, 35);
  assert.equal((await curl(['-k', secret.replace('http:', 'https:')], https)).code, 56);

  const viaSocks = await curl([allowed], socks);
  assert.equal(viaSocks.code, 0, viaSocks.err);
  assert.match(viaSocks.out, new RegExp(`^${ok} `));
  assert.equal((await curl([secret], socks)).code, 97);
  const hostname = await curl(['--socks5-hostname', `127.0.0.1:${p.port}`, allowed], {});
  assert.equal(hostname.code, 0, hostname.err);
  assert.equal((await curl(['--socks5-hostname', `127.0.0.1:${p.port}`, secret], {})).code, 97);

  assert.deepEqual(
    p.records.map((r) => `${r.via} ${r.host} ${r.allowed}`),
    [
      'http allowed.test true',
      'http secret.test false',
      'http secret.test false',
      'connect allowed.test true',
      'connect secret.test false',
      'connect allowed.test true',
      'connect secret.test false',
      'socks5 allowed.test true',
      'socks5 secret.test false',
      'socks5 allowed.test true',
      'socks5 secret.test false',
    ],
  );
  assert.deepEqual(p.lookups, Array(5).fill('allowed.test'));
});

test('net proxy: pipelined requests are forwarded one at a time (one upstream connection), and past the queue the client is dropped', async (t) => {
  let open = 0;
  let most = 0;
  const server = createHttpServer((req, res) => {
    res.end(`got ${req.url}`);
  });
  server.on('connection', (s: Socket) => {
    most = Math.max(most, ++open);
    s.once('close', () => open--);
  });
  const up = await listen(t, server);
  const { port } = await start(t, { allow: ['127.0.0.1'] });
  const c = wire(t, port);
  const ask = (n: number) => `GET http://127.0.0.1:${up}/${n} HTTP/1.1\r\nHost: 127.0.0.1:${up}\r\n\r\n`;
  c.send(Array.from({ length: 20 }, (_, i) => ask(i)).join(''));
  for (let i = 0; i < 20; i++) assert.equal((await c.response()).body, `got /${i}`);
  assert.equal(most, 1, 'never more than one upstream connection for one client connection');

  const flood = wire(t, port);
  flood.send(Array.from({ length: 200 }, (_, i) => ask(i)).join(''));
  await flood.closed;
});

test('net proxy: one command holding its share of connections leaves room for another command', async (t) => {
  const proxy = createNetProxy();
  closing(t).proxies.push(proxy);
  const job = { decide: async () => ({ allow: false as const, why: 'no' }), record: () => {} };
  const other = { decide: async () => ({ allow: false as const, why: 'refused for the test' }), record: () => {} };
  let turn: typeof job = job;
  const listener = createServer((s) => proxy.handle(s, turn));
  const port = await listen(t, listener);
  const held = Array.from({ length: 257 }, () => wire(t, port));
  await waitFor(() => proxy.open === 256, 'the job to hold 256 connections');
  const refused = held.at(-1);
  assert.ok(refused);
  refused.send('GET http://x.example/ HTTP/1.1\r\nHost: x.example\r\n\r\n');
  assert.match((await refused.response()).body, /256 connections are open already/);
  turn = other;
  const c = wire(t, port);
  c.send('GET http://y.example/ HTTP/1.1\r\nHost: y.example\r\n\r\n');
  assert.match((await c.response()).body, /refused for the test/);
});
