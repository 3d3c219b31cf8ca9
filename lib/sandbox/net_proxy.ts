/**
 * The network a sandboxed command gets under `--sandbox --allow-net=host[:port],…`: none of its
 * own (bubblewrap gives it an empty network namespace), only this filtering proxy, which runs in
 * the runtime and is handed each connection the command makes to the listener inside the sandbox.
 * One handler serves both kinds of proxy clients, told apart by the first byte: SOCKS5 (0x05,
 * net_proxy_socks.ts) and HTTP — absolute-URI forwarding for plain http and CONNECT tunnels
 * (net_proxy_http.ts). The proxy never listens on anything itself.
 *
 * Every attempt is judged by the caller's policy first, on the host as the command named it, then
 * resolved — once, and only when allowed, so a refused name never reaches DNS — with its addresses
 * checked (lib/web/addresses.ts: loopback, private, link-local and metadata addresses only when the
 * answer allows that address), and dialed by those literal addresses: no second lookup, so no DNS
 * rebinding between the check and the connection. Every attempt is recorded exactly once. The
 * runtime must never fall over because of what a command sends: every socket has an error listener
 * from its first moment, and slow, silent or malformed clients are closed. Main thread.
 */
import net, { isIP, type Socket } from 'node:net';
import type { NetAttempt } from '../core/tool_result.ts';
import { resolveChecked } from '../web/addresses.ts';
import { busyAnswer, createHttpSide, type HttpLink, type Opened } from './net_proxy_http.ts';
import { refuseSocks, serveSocks } from './net_proxy_socks.ts';

export type ProxyVia = NetAttempt['via'];
/** What the policy is asked. `host`: lower case, no brackets, no trailing dot. */
export interface NetAsk {
  host: string;
  port: number;
  via: ProxyVia;
}
/** The policy's answer. allowedAddress: which loopback/private literal addresses this request may reach (an address itself allowed). */
export type NetAnswer = { allow: true; allowedAddress?: (ip: string) => boolean } | { allow: false; why: string };
/** One attempt, as the command's answer keeps it (core/tool_result.ts NetAttempt). */
export type NetRecord = NetAttempt;
export interface ProxyContext {
  /** May take long (a user prompt); the connection waits. */
  decide: (a: NetAsk) => Promise<NetAnswer>;
  /** Every attempt, allowed or not, exactly once. */
  record: (r: NetRecord) => void;
  /** Aborted when the command ends: all its connections are destroyed. */
  signal?: AbortSignal;
}
export interface NetProxy {
  handle(socket: Socket, ctx: ProxyContext): void;
  /** Open client connections. */
  readonly open: number;
  /** Destroys everything. */
  close(): void;
}
/** The shape of dns.promises.lookup(host, { all: true, verbatim: true }). */
export type Lookup = (host: string, o: { all: true; verbatim: true }) => Promise<{ address: string; family: number }[]>;

const MAX_CONNECTIONS = 1024;
/** Open client connections of one command: a background job holding many leaves room for the others. */
const MAX_PER_COMMAND = 256;
const HANDSHAKE_MS = 10_000;
/** Per address dialed: an address that swallows packets should not hold the attempt for the OS's two minutes when another may answer. */
const DIAL_MS = 15_000;

/** One client connection and the upstream connections made for it. */
interface Link extends HttpLink {
  open(host: string, port: number, via: ProxyVia): Promise<Opened>;
  client: Socket;
  ctx: ProxyContext;
  ups: Set<Socket>;
  destroy(): void;
}

export function createNetProxy(o: { resolve?: Lookup; maxConnections?: number; handshakeMs?: number } = {}): NetProxy {
  const max = o.maxConnections ?? MAX_CONNECTIONS;
  const handshakeMs = o.handshakeMs ?? HANDSHAKE_MS;
  const links = new Set<Link>();
  const bySignal = new WeakMap<AbortSignal, { links: Set<Link>; abort: () => void }>();
  const http = createHttpSide();
  let serving = 0;
  const perContext = new WeakMap<ProxyContext, number>();
  let closed = false;

  /** Links are destroyed with their command: one abort listener per signal, not one per connection. */
  function watch(link: Link, signal: AbortSignal): void {
    let watched = bySignal.get(signal);
    if (!watched) {
      const mine = new Set<Link>();
      const abort = () => {
        for (const l of mine) l.destroy();
      };
      watched = { links: mine, abort };
      signal.addEventListener('abort', watched.abort, { once: true });
      bySignal.set(signal, watched);
    }
    const { links: mine, abort } = watched;
    mine.add(link);
    link.client.once('close', () => {
      mine.delete(link);
      if (mine.size > 0) return;
      signal.removeEventListener('abort', abort);
      bySignal.delete(signal);
    });
  }

  return {
    handle(client, ctx) {
      // First of all: an error on a socket nobody listens to would take the runtime down.
      client.on('error', () => {});
      if (closed || ctx.signal?.aborted) return void client.destroy();
      const mine = perContext.get(ctx) ?? 0;
      const counted = serving < max && mine < Math.min(max, MAX_PER_COMMAND);
      // Released once, when destroyed here or closed by the client: `open` is right at once after close().
      let held = counted;
      const release = () => {
        links.delete(link);
        if (held) {
          serving--;
          perContext.set(ctx, (perContext.get(ctx) ?? 1) - 1);
        }
        held = false;
      };
      const link = makeLink(client, ctx, { handshakeMs, resolve: o.resolve, release });
      links.add(link);
      if (counted) {
        serving++;
        perContext.set(ctx, mine + 1);
      }
      client.once('close', () => link.destroy());
      if (ctx.signal) watch(link, ctx.signal);
      link.idle();
      peek(client, (first) => {
        if (first === 0x04) return link.destroy(); // SOCKS4: not offered, and it has no way to say so
        // Beyond the limit a client is still answered, in its own protocol, so the command can say why.
        if (first === 0x05) (counted ? serveSocks : refuseSocks)(link).catch(() => link.destroy());
        else if (counted) http.serve(client, link);
        else link.end(busyAnswer(serving < max ? MAX_PER_COMMAND : max));
      });
    },
    get open() {
      return serving;
    },
    close() {
      closed = true;
      for (const link of links) link.destroy();
    },
  };
}

/** The first byte, read and put back, to tell SOCKS5 from HTTP; a client that ends before sending any is closed. */
function peek(client: Socket, then: (first: number) => void): void {
  const stop = () => {
    client.off('readable', look);
    client.off('end', ended);
  };
  const ended = () => {
    stop();
    client.destroy();
  };
  function look() {
    const b = client.read(1) as Buffer | null;
    if (b === null) return;
    stop();
    client.unshift(b);
    try {
      then(b.readUInt8(0));
    } catch {
      client.destroy();
    }
  }
  client.on('readable', look);
  client.once('end', ended);
}

function makeLink(
  client: Socket,
  ctx: ProxyContext,
  o: { handshakeMs: number; resolve: Lookup | undefined; release: () => void },
): Link {
  // A tunnel passes half-closes on (splice), so the client's connection must outlive its own end:
  // `git` and `nc -N` end their sending side and then read the answer.
  client.allowHalfOpen = true;
  let timer: NodeJS.Timeout | undefined;
  const link: Link = {
    client,
    ctx,
    ups: new Set(),
    open: (host, port, via) => attempt(link, host, port, via, o.resolve),
    tunnel(up, head) {
      link.busy();
      if (head.length > 0) up.write(head);
      splice(client, up);
    },
    busy: () => clearTimeout(timer),
    idle() {
      clearTimeout(timer);
      if (!client.destroyed) timer = setTimeout(() => link.destroy(), o.handshakeMs);
    },
    end(text) {
      if (client.writable) client.end(text);
      // Closed by the client once it has read the answer; by the timer if it never does.
      link.idle();
    },
    destroy() {
      clearTimeout(timer);
      o.release();
      client.destroy();
      for (const up of link.ups) up.destroy();
    },
  };
  return link;
}

const GONE = 'the command closed the connection before it was made';

/**
 * Judges, resolves and dials one host:port for `link`, and records the attempt once. The policy is
 * asked first, so a refused name is never looked up; the addresses found are checked, and dialed as
 * literals. What the command is told never names an internal address; the record's detail does.
 */
async function attempt(link: Link, named: string, port: number, via: ProxyVia, resolve?: Lookup): Promise<Opened> {
  const host = canonicalHost(named);
  if (host === undefined || !Number.isInteger(port) || port < 1 || port > 65535)
    return {
      ok: false,
      kind: 'malformed',
      text: `${JSON.stringify(named.slice(0, 300))} port ${port} is not a host and port`,
      target: '',
    };
  const target = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  const started = performance.now();
  const note = (r: Omit<NetRecord, 'via' | 'host' | 'port' | 'ms'>) => {
    try {
      link.ctx.record({ via, host, port, ...r, ms: Math.round(performance.now() - started) });
    } catch {
      // The caller's bookkeeping failing is no reason to fail the connection, nor to crash.
    }
  };
  const answer = await decided(link.ctx, { host, port, via });
  if (!answer.allow) {
    note({ allowed: false, why: answer.why });
    return { ok: false, kind: 'denied', text: answer.why, target };
  }
  if (link.client.destroyed) {
    note({ allowed: true, detail: GONE });
    return { ok: false, kind: 'gone', text: GONE, target };
  }
  const checked = await resolveChecked(host, answer.allowedAddress, resolve);
  if (!checked.ok) {
    // A name that does not resolve was allowed and is merely unreachable, and its words name no address.
    if (checked.reason === 'unresolved') {
      note({ allowed: true, detail: checked.detail });
      return { ok: false, kind: 'unreachable', text: checked.why, target };
    }
    const why = isIP(host)
      ? `${host} is a loopback, private or link-local address; allow that address itself with --allow-net=${target}`
      : `${host} resolves to a loopback, private or link-local address; allow that address itself with --allow-net=ADDRESS:${port}`;
    note({ allowed: false, why, detail: checked.detail });
    return { ok: false, kind: 'denied', text: why, target };
  }
  const { addresses } = checked;
  const dialed = await dial(link, addresses, port);
  if (link.client.destroyed) {
    if (dialed.ok) dialed.up.destroy();
    note({ allowed: true, addresses, detail: GONE });
    return { ok: false, kind: 'gone', text: GONE, target };
  }
  if (!dialed.ok) {
    const code = dialed.error.code ?? 'EFAIL';
    note({ allowed: true, addresses, detail: dialed.error.message });
    const kind = code === 'ECONNREFUSED' ? 'refused' : 'unreachable';
    return { ok: false, kind, text: `${target} could not be reached (${code})`, target };
  }
  note({ allowed: true, addresses });
  return { ok: true, up: dialed.up };
}

/** The policy's answer; a policy that throws or answers nonsense refuses. */
async function decided(ctx: ProxyContext, ask: NetAsk): Promise<NetAnswer> {
  try {
    const answer = await ctx.decide(ask);
    if (answer?.allow === true) return answer;
    if (answer?.allow === false) return { allow: false, why: String(answer.why) };
    return { allow: false, why: 'the network policy gave no answer' };
  } catch (e) {
    return { allow: false, why: `the network policy failed (${(e as Error)?.message ?? String(e)})` };
  }
}

/** The checked addresses tried one after the other, as literals: nothing is looked up again. */
async function dial(
  link: Link,
  addresses: string[],
  port: number,
): Promise<{ ok: true; up: Socket } | { ok: false; error: NodeJS.ErrnoException }> {
  let error: NodeJS.ErrnoException = new Error('no address to connect to');
  for (const host of addresses) {
    if (link.client.destroyed) break;
    const up = net.connect({ host, port, allowHalfOpen: true });
    up.on('error', () => {}); // for its whole life: errors are read where they matter
    link.ups.add(up);
    up.once('close', () => link.ups.delete(up));
    const failed = await connected(up);
    if (!failed) return { ok: true, up };
    up.destroy();
    error = failed;
  }
  return { ok: false, error };
}

/** Undefined once `up` is connected; else why it is not. */
function connected(up: Socket): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const late = () =>
      up.destroy(Object.assign(new Error(`no answer within ${DIAL_MS / 1000} s`), { code: 'ETIMEDOUT' }));
    up.setTimeout(DIAL_MS, late);
    up.once('connect', () => {
      up.setTimeout(0, late);
      resolve(undefined);
    });
    up.once('error', resolve);
    up.once('close', () => resolve(Object.assign(new Error('closed while connecting'), { code: 'ECONNABORTED' })));
  });
}

/**
 * Two connections joined both ways. A half-close passes through (the end of one side ends the
 * other's sending side); an error on either side destroys both; a side that closes leaves the other
 * to deliver what it has queued, then closes it.
 */
function splice(a: Socket, b: Socket): void {
  a.pipe(b);
  b.pipe(a);
  for (const [x, y] of [
    [a, b],
    [b, a],
  ] as const) {
    x.on('error', () => y.destroy());
    x.on('close', () => {
      if (y.destroyed) return;
      if (y.writableFinished) return void y.destroy();
      y.once('finish', () => y.destroy());
      y.end();
    });
  }
}

/**
 * The host as the policy sees it: lower case, IDN as punycode, IPv4 in its dotted form (so
 * `127.1` is judged as 127.0.0.1), no brackets, no trailing dot; undefined when it is no host.
 */
function canonicalHost(named: string): string | undefined {
  const bare = named.startsWith('[') && named.endsWith(']') ? named.slice(1, -1) : named;
  // What would make the URL below read a path, a user or a port, or is in no host name.
  if (bare === '' || /[\s/\\?#@%[\]]/.test(bare) || (bare.includes(':') && isIP(bare) !== 6)) return undefined;
  let host: string;
  try {
    host = new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}/`).hostname;
  } catch {
    return undefined;
  }
  host = host.replace(/^\[(.*)\]$/, '$1');
  if (host.length > 1 && host.endsWith('.')) host = host.slice(0, -1);
  return host === '' ? undefined : host;
}
