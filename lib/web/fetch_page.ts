/**
 * One web page fetched for the agent: a GET over http or https that connects only to addresses
 * checked first (addresses.ts: each hop's host resolved once, and the connection made to exactly
 * those addresses — a name cannot resolve to a public address for the check and a private one for the
 * connection), follows at most MAX_REDIRECTS redirects, each to a host the caller lets it reach (a
 * refused one is named) and never from https down to http, and reads at most `maxBytes` of the body
 * after decompression (a compressed bomb stops there) within `timeoutMs` in all. Main thread.
 */
import type { IncomingMessage } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { addAbortSignal, pipeline } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { callDeadline } from '../core/deadline.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { hostOfUrl, resolveChecked } from './addresses.ts';

export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface PageRequest {
  url: string;
  /** Whether a redirect may go to `host` (host[:port], as a net permission names it): true, or why not. */
  mayReach(host: string): Promise<true | string>;
  /** A loopback or private address the caller allows by address (one named in a hop's URL always is). */
  allowedAddress?(ip: string): boolean;
  maxBytes: number;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface FetchedPage {
  /** Where the body came from, after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** The body went on past `maxBytes` (after decompression). */
  cut: boolean;
  /** The hosts the redirects went to, in order. */
  via: string[];
}

export async function fetchPage(r: PageRequest): Promise<Result<FetchedPage, string>> {
  const deadline = callDeadline(r.signal, r.timeoutMs);
  try {
    return await follow(r, deadline.signal);
  } catch (e) {
    if (deadline.signal.aborted && !r.signal.aborted)
      return errValue(`${r.url} did not answer within ${r.timeoutMs / 1000} s`);
    return errValue(`${r.url} could not be fetched: ${(e as Error).message}`);
  } finally {
    deadline.clear();
  }
}

async function follow(r: PageRequest, signal: AbortSignal): Promise<Result<FetchedPage, string>> {
  let at: URL;
  try {
    at = new URL(r.url);
  } catch {
    return errValue(`${JSON.stringify(r.url)} is not a URL`);
  }
  if (at.protocol !== 'http:' && at.protocol !== 'https:') return errValue(`${r.url} is not an http(s) URL`);
  const via: string[] = [];
  for (let hop = 0; ; hop++) {
    const res = await get(at, r, signal);
    if (!res.ok) return res;
    const m = res.value;
    if (!REDIRECTS.has(m.statusCode ?? 0)) return okValue({ ...(await bodyOf(at, m, r.maxBytes, signal)), via });
    m.destroy();
    const next = redirectTarget(at, m.headers.location, hop);
    if (!next.ok) return next;
    const may = await r.mayReach(hostOfUrl(next.value));
    if (may !== true) return errValue(`${at.href} redirected to ${next.value.href}, which was not fetched: ${may}`);
    at = next.value;
    via.push(hostOfUrl(at));
  }
}

export function redirectTarget(at: URL, location: string | undefined, hop: number): Result<URL, string> {
  if (!location) return errValue(`${at.href} answered a redirect without saying where to (no Location)`);
  let next: URL;
  try {
    next = new URL(location, at);
  } catch {
    return errValue(`${at.href} redirected to ${JSON.stringify(location)}, which is not a URL`);
  }
  if (hop >= MAX_REDIRECTS) return errValue(`redirected more than ${MAX_REDIRECTS} times (last to ${next.href})`);
  if (next.protocol !== 'http:' && next.protocol !== 'https:')
    return errValue(`${at.href} redirected to ${next.href}, which is not an http(s) URL`);
  if (at.protocol === 'https:' && next.protocol !== 'https:')
    return errValue(`${at.href} redirected to ${next.href}: a redirect may not drop the encryption`);
  return okValue(next);
}

/** The response to a GET of `at`, connected to its host's checked addresses only. */
async function get(at: URL, r: PageRequest, signal: AbortSignal): Promise<Result<IncomingMessage, string>> {
  // An address named in the URL itself was allowed by address: the policy judged exactly it.
  const literal = at.hostname.replace(/^\[|\]$/g, '');
  const checked = await resolveChecked(at.hostname, (ip) => ip === literal || r.allowedAddress?.(ip) === true);
  if (!checked.ok) return errValue(`${at.href} was not fetched: ${checked.why}`);
  const lookup = pinned(checked.addresses);
  const headers = {
    'user-agent': 'MewCode-web_fetch',
    accept: 'text/html, text/markdown, text/plain;q=0.9, application/json;q=0.9, */*;q=0.5',
    'accept-encoding': 'gzip, deflate, br',
  };
  const send = at.protocol === 'https:' ? https.get : http.get;
  return new Promise((resolve, reject) => {
    const req = send(at, { headers, lookup, signal, agent: false }, (m) => resolve(okValue(m)));
    req.on('error', reject);
    // Settled whatever happens: a 101 answer (no 'upgrade' listener: Node drops the socket and says
    // nothing), a close before any answer, or the deadline, which may come after the request ended.
    req.on('upgrade', (_m, socket) => {
      socket.destroy();
      reject(new Error(`${at.href} answered 101 Switching Protocols, not a page`));
    });
    req.on('close', () => reject(new Error(`${at.href} closed the connection before answering`)));
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** A lookup that answers the addresses checked before, whatever it is asked (no second resolution). */
function pinned(addresses: readonly string[]): LookupFunction {
  const all = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  return ((_host: string, options: { all?: boolean }, done: (...a: unknown[]) => void) => {
    const first = all[0] as { address: string; family: number };
    if (options?.all) done(null, all);
    else done(null, first.address, first.family);
  }) as LookupFunction;
}

/** The body, decompressed, at most `max` bytes of it. */
async function bodyOf(
  at: URL,
  m: IncomingMessage,
  max: number,
  signal: AbortSignal,
): Promise<Omit<FetchedPage, 'via'>> {
  const encoding = String(m.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (!['', 'identity', 'gzip', 'x-gzip', 'deflate', 'br'].includes(encoding)) {
    m.destroy();
    throw new Error(`the body is encoded as ${JSON.stringify(encoding)}, which web_fetch does not decode`);
  }
  const unpack =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  // pipeline, not pipe: a connection dropped mid-body ends the decompressor with an error instead of
  // leaving it waiting forever; and the deadline ends whichever stream is read.
  const stream = addAbortSignal(signal, unpack ? pipeline(m, unpack, () => {}) : m);
  const chunks: Buffer[] = [];
  let size = 0;
  let cut = false;
  try {
    for await (const chunk of stream) {
      signal.throwIfAborted();
      const b = chunk as Buffer;
      if (size + b.length > max) {
        chunks.push(b.subarray(0, max - size));
        cut = true;
        break;
      }
      chunks.push(b);
      size += b.length;
    }
  } finally {
    m.destroy();
    unpack?.destroy();
  }
  const type = String(m.headers['content-type'] ?? '');
  return { url: at.href, status: m.statusCode ?? 0, contentType: type, body: Buffer.concat(chunks), cut };
}
