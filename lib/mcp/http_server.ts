/**
 * `mewcode mcp --http`: the runtime's tools over MCP's Streamable HTTP transport at `/mcp`, with
 * `/healthz` (liveness) and `/readyz` (readiness: sessions, the index's state) for orchestrators.
 * Every request passes the guard first (http_guard.ts: Origin and Host, then the bearer token), the
 * body is read under a size bound and parsed here, and the session's transport (http_sessions.ts)
 * does the rest. On SIGTERM or SIGINT it drains: new sessions and calls get 503, calls in flight
 * may finish within the grace, the rest are aborted (their process groups killed), then it closes
 * and settles with 128 + the signal's number. Main thread.
 */
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { Socket } from 'node:net';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { killAllNow } from '../exec/live.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { bearerMatches, type ListenAddress, originRefusal } from './http_guard.ts';
import { DEFAULT_LIMITS, Session, type SessionLimits } from './http_sessions.ts';
import { requestKey } from './server.ts';

export interface HttpServeOptions {
  listen: ListenAddress;
  token: string;
  allowOrigins?: readonly string[];
  tls?: { key: Buffer; cert: Buffer };
  /** How long calls in flight may run on after SIGTERM before they are aborted. */
  drainGraceMs?: number;
  limits?: Partial<SessionLimits>;
  /** Told the address once listening (the CLI prints it). */
  onListening?: (url: string) => void;
}

const STOP_SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
const SILENT_SOCKET_MS = 20_000;
const HEADERS_MS = 20_000;
/** How long the rest of a body past the limit is read and dropped before the connection is cut. */
const DISCARD_MS = 5_000;

/** Closes a connection that has sent no byte within SILENT_SOCKET_MS. */
function closeIfSilent(socket: Socket): void {
  const timer = setTimeout(() => socket.destroy(), SILENT_SOCKET_MS);
  timer.unref();
  socket.once('data', () => clearTimeout(timer));
  socket.once('close', () => clearTimeout(timer));
}

/** Serves until a stop signal; settles with the exit code (128 + the signal's number). */
export async function serveMcpHttp(runtime: Runtime, version: string, o: HttpServeOptions): Promise<number> {
  const state = new HttpState(runtime, version, o);
  const server = o.tls
    ? createHttps({ key: o.tls.key, cert: o.tls.cert }, (q, s) => void state.handle(q, s))
    : createHttp((q, s) => void state.handle(q, s));
  // A connection that sends nothing is closed (no token is needed to open one, and idle ones would
  // use up the process's descriptors); headers sent too slowly are cut by headersTimeout, and a
  // kept-alive connection between requests by Node's keepAliveTimeout.
  server.headersTimeout = HEADERS_MS;
  server.on('connection', closeIfSilent);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.listen.port, o.listen.host.replace(/^\[|\]$/g, ''), () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : o.listen.port;
  const host = o.listen.host.includes(':') && !o.listen.host.startsWith('[') ? `[${o.listen.host}]` : o.listen.host;
  o.onListening?.(`${o.tls ? 'https' : 'http'}://${host}:${port}/mcp`);
  const sweep = setInterval(() => state.expireIdle(), 60_000);
  sweep.unref();
  const signal = await stopSignal();
  clearInterval(sweep);
  await state.drain(o.drainGraceMs ?? 10_000);
  await closeServer(server);
  return 128 + STOP_SIGNALS[signal];
}

/** The first stop signal; a second one kills every command at once and exits. */
function stopSignal(): Promise<keyof typeof STOP_SIGNALS> {
  return new Promise((resolve) => {
    const names = Object.keys(STOP_SIGNALS) as (keyof typeof STOP_SIGNALS)[];
    const first = (name: keyof typeof STOP_SIGNALS) => () => {
      for (const n of names) process.off(n, handlers[n] as () => void);
      for (const n of names)
        process.once(n, () => {
          killAllNow();
          process.exit(128 + STOP_SIGNALS[name]);
        });
      process.stderr.write(`\nmewcode: ${name}; draining the MCP sessions\n`);
      resolve(name);
    };
    const handlers = Object.fromEntries(names.map((n) => [n, first(n)])) as Record<string, () => void>;
    for (const n of names) process.on(n, handlers[n] as () => void);
  });
}

async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((r) => server.close(() => r()));
  server.closeIdleConnections();
  // Streams still open after every session closed are kept-alive sockets: nothing more will come on them.
  setTimeout(() => server.closeAllConnections(), 1_000).unref();
  await closed;
}

class HttpState {
  readonly sessions = new Map<string, Session>();
  readonly limits: SessionLimits;
  draining = false;
  readonly runtime: Runtime;
  readonly version: string;
  readonly o: HttpServeOptions;
  constructor(runtime: Runtime, version: string, o: HttpServeOptions) {
    this.runtime = runtime;
    this.version = version;
    this.o = o;
    this.limits = { ...DEFAULT_LIMITS, ...o.limits };
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const refused = originRefusal(req.headers.origin, req.headers.host, this.o.listen, this.o.allowOrigins ?? []);
      if (refused) return reply(res, 403, jsonRpcError(-32000, `Forbidden: ${refused}.`));
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/healthz') return reply(res, 200, { status: 'ok' });
      if (url.pathname === '/readyz') return reply(res, this.draining ? 503 : 200, this.readiness());
      if (url.pathname !== '/mcp') return reply(res, 404, { error: 'Not found: MCP is served at /mcp.' });
      if (!bearerMatches(req.headers.authorization, this.o.token)) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="mewcode"');
        return reply(res, 401, jsonRpcError(-32000, 'Unauthorized: send Authorization: Bearer <the token>.'));
      }
      await this.mcp(req, res);
    } catch (e) {
      if (!res.headersSent) reply(res, 500, jsonRpcError(-32603, `Internal error: ${(e as Error).message}`));
      else res.destroy();
    }
  }

  async mcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sid = req.headers['mcp-session-id'];
    const id = Array.isArray(sid) ? sid[0] : sid;
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readBody(req, this.limits.maxBodyBytes);
      if (read === 'too large') {
        // Answered at once; the rest of the body is read and dropped for a few seconds, so the client
        // can finish sending and read the answer (closing now would reset a client still sending),
        // then the connection is cut (a body that never ends).
        res.once('finish', () => {
          const cut = setTimeout(() => req.destroy(), DISCARD_MS);
          cut.unref();
          req.once('end', () => clearTimeout(cut));
        });
        return reply(res, 413, jsonRpcError(-32000, `Request body over ${this.limits.maxBodyBytes} bytes.`));
      }
      try {
        body = JSON.parse(read);
      } catch {
        return reply(res, 400, jsonRpcError(-32700, 'Parse error: the body is not JSON.'));
      }
    }
    const requests = requestIds(body);
    if (this.draining && requests.length > 0)
      return reply(res, 503, jsonRpcError(-32000, 'The server is shutting down: no new calls.'));
    let session = id === undefined ? undefined : this.sessions.get(id);
    if (id !== undefined && !session) return reply(res, 404, jsonRpcError(-32001, 'Session not found.'));
    if (!session) {
      if (req.method !== 'POST' || !isInitializeRequest(body))
        return reply(res, 400, jsonRpcError(-32000, 'Bad Request: no Mcp-Session-Id; start with initialize.'));
      if (this.sessions.size >= this.limits.maxSessions)
        return reply(res, 503, jsonRpcError(-32000, `Too many sessions (${this.limits.maxSessions}).`));
      session = new Session(
        this.runtime,
        this.version,
        (s) => this.sessions.set(s.id, s),
        (s) => this.sessions.delete(s.id),
      );
      await session.connect();
    }
    this.track(session, req, res, requests);
    await session.transport.handleRequest(req, res, body);
    // An initialize the transport refused made no session: nothing will ever use this one.
    if (session.id === '') void session.end('the MCP session never started');
  }

  /** Counts the session's open requests; a POST stream closed before its answers orphans their calls. */
  track(session: Session, req: IncomingMessage, res: ServerResponse, requests: string[]): void {
    session.lastSeen = Date.now();
    session.open++;
    // A resume takes over the calls whose stream was lost: if it closes early in turn (the client
    // died again, or its Last-Event-ID was refused), they are orphaned again.
    const carried = req.method === 'GET' && req.headers['last-event-id'] !== undefined ? session.resumed() : requests;
    res.once('close', () => {
      session.open--;
      session.lastSeen = Date.now();
      if (!res.writableFinished && carried.length > 0) session.orphaned(carried, this.limits.resumeGraceMs);
    });
  }

  readiness() {
    const index = this.runtime.searchIndex;
    return {
      status: this.draining ? 'draining' : 'ready',
      sessions: this.sessions.size,
      calls: [...this.sessions.values()].reduce((n, s) => n + s.inflight.size, 0),
      index: !index
        ? 'off'
        : index.checking
          ? 'checking'
          : index.loaded
            ? { state: 'loaded', changed: index.changedCount }
            : 'not built',
    };
  }

  expireIdle(): void {
    const now = Date.now();
    for (const s of this.sessions.values())
      if (s.open === 0 && s.inflight.size === 0 && now - s.lastSeen > this.limits.idleMs)
        void s.end('the MCP session expired idle');
  }

  /** No new calls; those in flight get `graceMs` to finish, then are aborted; every session closes. */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    const running = () => [...this.sessions.values()].flatMap((s) => [...s.inflight.values()].map((c) => c.running));
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((r) => {
      timer = setTimeout(r, graceMs);
    });
    await Promise.race([Promise.allSettled(running()), graceOver]);
    clearTimeout(timer);
    await Promise.allSettled([...this.sessions.values()].map((s) => s.end('the server is shutting down')));
  }
}

/** The ids of the JSON-RPC requests in a body (one message or a batch), as keys of the in-flight calls. */
function requestIds(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : body === undefined ? [] : [body];
  return messages
    .filter((m) => m && typeof m === 'object' && 'method' in m && 'id' in m)
    .map((m) => requestKey((m as { id: unknown }).id));
}

/** The body, or 'too large' as soon as it passes `max` bytes (declared or read): the rest is not waited for. */
function readBody(req: IncomingMessage, max: number): Promise<string | 'too large'> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > max) {
      req.resume(); // dropped
      return resolve('too large');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) return void chunks.push(chunk);
      req.off('data', onData);
      req.resume(); // dropped from here on
      resolve('too large');
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

const jsonRpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}
