/**
 * The HTTP side of the sandbox's network proxy (net_proxy.ts): plain `http://` requests forwarded
 * (an absolute URI, as `http_proxy` makes curl, git and pip send it), and CONNECT tunnels for TLS or
 * anything else. Node's HTTP parser reads the requests, from an http.Server that never listens: the
 * proxy hands it each connection. Every request is judged on its own — one keep-alive connection may
 * ask for several hosts — and forwarded over its own upstream connection to the checked addresses, so
 * no connection ever carries two verdicts. Main thread.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { pipeline } from 'node:stream';

/** The outcome of judging and dialing host:port. `target` is the host and port as judged. */
export type Opened =
  | { ok: true; up: Socket }
  | { ok: false; kind: 'malformed' | 'denied' | 'refused' | 'unreachable' | 'gone'; text: string; target: string };

/** What the HTTP side needs of the client connection it serves (net_proxy.ts keeps it). */
export interface HttpLink {
  /** Judges, resolves and dials host:port, and records the attempt. */
  open(host: string, port: number, via: 'http' | 'connect'): Promise<Opened>;
  /** The client and `up` joined both ways for the rest of the connection, `head` sent up first. */
  tunnel(up: Socket, head: Buffer): void;
  /** A request has arrived whole: the wait for one stops. */
  busy(): void;
  /** Nothing is pending any more: a request must come within the handshake time. */
  idle(): void;
  /** `text` written and the connection ended (and destroyed if the client never closes its side). */
  end(text: string | Buffer): void;
}

/** Hop-by-hop fields, which concern only one connection and are never passed on (RFC 9110 §7.6.1). */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
];

type Refused = Exclude<Opened, { ok: true }>;

const STATUS: Record<Refused['kind'], [number, string]> = {
  malformed: [400, 'Bad Request'],
  denied: [403, 'Forbidden'],
  refused: [502, 'Bad Gateway'],
  unreachable: [502, 'Bad Gateway'],
  gone: [502, 'Bad Gateway'],
};

/** Requests one client connection may have waiting behind the one being forwarded. */
const PIPELINED = 32;

/** A proxy's HTTP side: `serve` parses the client's requests from the bytes it has not yet read. */
export function createHttpSide(): { serve(client: Socket, link: HttpLink): void } {
  const links = new WeakMap<Socket, { link: HttpLink; pending: number; turn: Promise<void> }>();
  // Node's own keep-alive and header timers are off: the link's handshake timer does their work (and
  // a server that never listens does not run the header timer anyway).
  const server = http.createServer({ keepAliveTimeout: 0, requestTimeout: 0 });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const state = links.get(req.socket);
    if (!state) return res.destroy();
    // Pipelined requests are forwarded one after the other (their answers go back in order anyway):
    // one client connection holds at most one upstream connection, and at most PIPELINED wait.
    if (++state.pending > PIPELINED) return req.socket.destroy();
    state.link.busy();
    const done = new Promise<void>((resolve) => res.once('close', resolve));
    res.on('close', () => {
      if (--state.pending === 0) state.link.idle();
    });
    state.turn = state.turn.then(() => {
      if (!res.destroyed) forward(req, res, state.link).catch(() => res.destroy());
      return done;
    });
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const state = links.get(client);
    if (!state) return client.destroy();
    state.link.busy();
    connect(req, client, head, state.link).catch(() => client.destroy());
  });
  server.on('clientError', (e: NodeJS.ErrnoException, client: Socket) => {
    const link = links.get(client)?.link;
    if (!link || !client.writable || e.code === 'ECONNRESET') return client.destroy();
    const [status, reason] =
      e.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large'] : [400, 'Bad Request'];
    link.end(answer(status, reason, `MewCode proxy: not a request it can read (${e.code ?? e.message})\n`));
  });
  return {
    serve(client, link) {
      links.set(client, { link, pending: 0, turn: Promise.resolve() });
      server.emit('connection', client);
    },
  };
}

/** A whole HTTP/1.1 answer that ends the connection. */
function answer(status: number, reason: string, body: string, fields: Record<string, string> = {}): string {
  const head = [`HTTP/1.1 ${status} ${reason}`, 'content-type: text/plain; charset=utf-8'];
  for (const [k, v] of Object.entries(fields)) head.push(`${k}: ${v}`);
  head.push(`content-length: ${Buffer.byteLength(body)}`, 'connection: close');
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}

/** The words for a refusal, in the body and, for CONNECT, the status line (curl shows no body there). */
function refusal(o: Refused): { status: number; reason: string; body: string } {
  const [status, reason] = STATUS[o.kind];
  if (o.kind !== 'denied') return { status, reason, body: `MewCode proxy: ${o.text}\n` };
  const said = `MewCode sandbox: ${o.text}`;
  // A reason phrase is printable ASCII on one line; the body keeps the words as they are.
  return { status, reason: said.replace(/[^ -~]+/g, ' '), body: `${said}\n` };
}

/** The refusal written to a forwarded request's response (the connection stays open for the next one). */
function refuse(res: ServerResponse, o: Refused): void {
  if (o.kind === 'gone') return void res.destroy();
  const { status, body } = refusal(o);
  const fields: Record<string, string | number> = {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  };
  if (o.kind === 'denied') fields['x-mewcode-denied'] = o.target;
  res.writeHead(status, fields).end(body);
}

/** A plain http:// request sent on to the checked address, its answer sent back. */
async function forward(req: IncomingMessage, res: ServerResponse, link: HttpLink): Promise<void> {
  const target = absoluteTarget(req.url ?? '');
  if (typeof target === 'string') return refuse(res, { ok: false, kind: 'malformed', text: target, target: '' });
  const opened = await link.open(target.hostname, Number(target.port || 80), 'http');
  if (!opened.ok) return refuse(res, opened);
  // The Host sent is the request target's, whatever the client's Host field says (RFC 9112 §3.2.2):
  // the host judged is the host asked for, so an allowed address cannot front for another name.
  const headers = ['Host', target.host, ...withoutHopByHop(req.rawHeaders, ['host'])];
  let up: http.ClientRequest;
  try {
    const path = `${target.pathname}${target.search}`;
    up = http.request({ createConnection: () => opened.up, method: req.method, path, headers });
  } catch (e) {
    // Fields Node's client refuses to write though its server read them.
    opened.up.destroy();
    const text = `the request cannot be passed on (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
    return refuse(res, { ok: false, kind: 'malformed', text, target: '' });
  }
  res.sendDate = false;
  // Settled once: by the answer, or by the upstream failing or closing before it (a 101 answer, which
  // Node drops without a word, included). After the answer has begun, only closing the client's
  // connection can tell it that the rest is missing.
  let settled = false;
  const broken = (why: string) => {
    if (settled) return;
    settled = true;
    opened.up.destroy();
    if (res.headersSent) res.destroy();
    else refuse(res, { ok: false, kind: 'unreachable', text: `${target.host}: ${why}`, target: '' });
  };
  up.on('response', (got: IncomingMessage) => {
    if (settled) return;
    try {
      // The body arrives decoded from its framing; Node frames it again as this client can read it
      // (chunked, or to the close for an HTTP/1.0 client), so the upstream's framing is not passed on.
      const fields = withoutHopByHop(got.rawHeaders, ['transfer-encoding']);
      res.writeHead(got.statusCode ?? 502, got.statusMessage, fields);
    } catch {
      return broken('the answer has fields that cannot be passed on');
    }
    settled = true;
    pipeline(got, res, () => {});
  });
  up.on('error', (e: NodeJS.ErrnoException) =>
    broken(`the connection failed before an answer (${e.code ?? e.message})`),
  );
  up.on('close', () => broken('the connection closed without an answer'));
  pipeline(req, up, () => {});
}

/** The absolute http:// URI a forwarding proxy is sent, or why the request is not one. */
function absoluteTarget(url: string): URL | string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `this is MewCode's proxy: it forwards requests for absolute http:// URIs (${JSON.stringify(url.slice(0, 200))} is not one); for anything else use CONNECT`;
  }
  if (u.protocol !== 'http:')
    return `only http:// URIs are forwarded (not ${u.protocol}); for https and anything else use CONNECT (https_proxy)`;
  return u;
}

/** Raw header pairs without the hop-by-hop fields, those the Connection field names, and `drop`. */
function withoutHopByHop(raw: string[], drop: string[] = []): string[] {
  const skip = new Set([...HOP_BY_HOP, ...drop]);
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]?.toLowerCase() === 'connection')
      for (const name of (raw[i + 1] ?? '').split(',')) skip.add(name.trim().toLowerCase());
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2)
    if (!skip.has((raw[i] ?? '').toLowerCase())) out.push(raw[i] ?? '', raw[i + 1] ?? '');
  return out;
}

/** A CONNECT: judged, dialed, answered 200 and joined; or refused, and the connection ended. */
async function connect(req: IncomingMessage, client: Socket, head: Buffer, link: HttpLink): Promise<void> {
  const at = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(req.url ?? '');
  const opened: Opened = at
    ? await link.open(at[1] as string, Number(at[2]), 'connect')
    : { ok: false, kind: 'malformed', text: 'CONNECT takes host:port', target: '' };
  if (opened.ok) {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    return link.tunnel(opened.up, head);
  }
  if (opened.kind === 'gone') return;
  const { status, reason, body } = refusal(opened);
  link.end(answer(status, reason, body, opened.kind === 'denied' ? { 'x-mewcode-denied': opened.target } : {}));
}

/** The answer to a connection the proxy has no room for. */
export const busyAnswer = (open: number) =>
  answer(503, 'Service Unavailable', `MewCode proxy: ${open} connections are open already, the most it keeps\n`);
