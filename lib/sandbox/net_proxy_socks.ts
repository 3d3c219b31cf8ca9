/**
 * The SOCKS5 side of the sandbox's network proxy (net_proxy.ts): the handshake of RFC 1928 read off
 * a client connection, the verdict answered as a reply code, then the tunnel. Offered: no
 * authentication (the proxy is reachable only from inside one sandbox, whose command is its only
 * client), the CONNECT command, and IPv4, domain name and IPv6 addresses; BIND and UDP ASSOCIATE
 * are answered "command not supported", SOCKS4 is not spoken at all. A domain name comes here as the
 * client sent it (`socks5h://`), so the sandbox's policy judges the name before anything resolves it.
 * Main thread.
 */
import type { Socket } from 'node:net';
import type { Opened } from './net_proxy_http.ts';

/** What the SOCKS side needs of the client connection it serves (net_proxy.ts keeps it). */
export interface SocksLink {
  client: Socket;
  /** Judges, resolves and dials host:port, and records the attempt. */
  open(host: string, port: number, via: 'socks5'): Promise<Opened>;
  /** The client and `up` joined both ways for the rest of the connection. */
  tunnel(up: Socket, head: Buffer): void;
  /** The request has arrived whole: the wait for it stops. */
  busy(): void;
  /** `bytes` written and the connection ended (and destroyed if the client never closes its side). */
  end(bytes: Buffer): void;
}

/** The reply codes used (RFC 1928 §6). */
const SOCKS = {
  ok: 0x00,
  failure: 0x01,
  notAllowed: 0x02,
  unreachable: 0x04,
  refused: 0x05,
  noCommand: 0x07,
  noAddressType: 0x08,
} as const;

/**
 * What a client asked for: a CONNECT to `host` (a name, or an address without brackets) and `port`;
 * or the bytes to end the connection with.
 */
type SocksRequest = { ok: true; host: string; port: number } | { ok: false; answer: Buffer };

/** A reply; the bound address is 0.0.0.0:0, which clients ignore for CONNECT. */
const socksReply = (code: number) => Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);

const failed = (code: number): SocksRequest => ({ ok: false, answer: socksReply(code) });

/**
 * Reads the greeting, chooses no authentication, and reads the request (whatever the client sent
 * after it stays unread, for the tunnel). Rejects when the client leaves mid-handshake.
 */
async function readSocksRequest(client: Socket): Promise<SocksRequest> {
  const need = reader(client);
  const greeting = await need(2);
  if (greeting.readUInt8(0) !== 5) return failed(SOCKS.failure);
  const count = greeting.readUInt8(1);
  const methods = count > 0 ? await need(count) : Buffer.alloc(0);
  // "No acceptable methods": the client gives up without sending a request.
  if (!methods.includes(0)) return { ok: false, answer: Buffer.from([5, 0xff]) };
  client.write(Buffer.from([5, 0]));
  const request = await need(4);
  if (request.readUInt8(0) !== 5) return failed(SOCKS.failure);
  const [command, type] = [request.readUInt8(1), request.readUInt8(3)];
  let host: string;
  if (type === 1) host = [...(await need(4))].join('.');
  else if (type === 3) {
    const length = (await need(1)).readUInt8(0);
    if (length === 0) return failed(SOCKS.failure);
    host = (await need(length)).toString('utf8');
  } else if (type === 4) host = v6Text(await need(16));
  else return failed(SOCKS.noAddressType);
  const port = (await need(2)).readUInt16BE(0);
  // The whole request is read before the command is judged, so the reply is the client's next bytes.
  if (command !== 1) return failed(SOCKS.noCommand);
  return { ok: true, host, port };
}

/** One SOCKS5 client: the handshake, the verdict as a reply code, then the tunnel. */
export async function serveSocks(link: SocksLink): Promise<void> {
  const asked = await readSocksRequest(link.client);
  if (!asked.ok) return link.end(asked.answer);
  link.busy();
  const opened = await link.open(asked.host, asked.port, 'socks5');
  if (opened.ok) {
    link.client.write(socksReply(SOCKS.ok));
    return link.tunnel(opened.up, Buffer.alloc(0));
  }
  if (opened.kind !== 'gone') link.end(socksReply(REPLY_FOR[opened.kind]));
}

const REPLY_FOR = {
  malformed: SOCKS.failure,
  denied: SOCKS.notAllowed,
  refused: SOCKS.refused,
  unreachable: SOCKS.unreachable,
} as const;

/** A client the proxy has no room for: the handshake, then "general failure" (no verdict is asked). */
export async function refuseSocks(link: SocksLink): Promise<void> {
  const asked = await readSocksRequest(link.client);
  link.end(asked.ok ? socksReply(SOCKS.failure) : asked.answer);
}

/** 16 bytes as an IPv6 literal (the proxy canonicalises it, so the long form is enough). */
function v6Text(b: Buffer): string {
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(b.readUInt16BE(i).toString(16));
  return words.join(':');
}

/**
 * Exactly `n` bytes at a time off `client`, taken with read(n) so that nothing beyond the handshake
 * is consumed: bytes a client sends right after its request (some do, without waiting for the reply)
 * stay in the socket for the tunnel. Rejects when the client ends or closes first.
 */
function reader(client: Socket): (n: number) => Promise<Buffer> {
  return (n) =>
    new Promise((resolve, reject) => {
      const done = () => {
        client.off('readable', attempt);
        client.off('end', gone);
        client.off('close', gone);
      };
      const gone = () => {
        done();
        reject(new Error('the client left during the SOCKS handshake'));
      };
      function attempt() {
        const b = client.read(n) as Buffer | null;
        if (b === null) return false;
        done();
        if (b.length < n) reject(new Error('the client left during the SOCKS handshake'));
        else resolve(b);
        return true;
      }
      if (client.destroyed || client.readableEnded) return gone();
      if (attempt()) return;
      client.on('readable', attempt);
      client.once('end', gone);
      client.once('close', gone);
    });
}
