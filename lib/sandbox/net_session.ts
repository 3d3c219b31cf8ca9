/**
 * One sandboxed command's network, filtered by host: takes the listening socket the sandbox hands out
 * (proxy_launch.ts), feeds what the command connects with to the runtime's proxy (net_proxy.ts), asks
 * the policy once per host and port for this command, keeps every attempt, and closes the listener and
 * the command's connections when the command ends — a held socket would keep its dead network
 * namespace alive. Main thread.
 */
import type { ChildProcess } from 'node:child_process';
import { isIP, Server } from 'node:net';
import type { Access, NetAccess } from '../core/tool.ts';
import { hostCovers } from '../policy/permissions.ts';
import { isForbiddenIp } from '../web/addresses.ts';
import type { NetAnswer, NetAsk, NetProxy, NetRecord } from './net_proxy.ts';
import { PROXY_PORT } from './proxy_launch.ts';

/** Attempts kept per command; past it they are counted. */
const MAX_RECORDS = 1000;
/** Hosts refused in one command before the rest are refused without asking (no prompt storm). */
const MAX_REFUSED = 10;
/** Refused hosts the answer names one by one. */
const MAX_NAMED = 20;

export interface NetSession {
  /** Given the spawned launcher: takes the listener its sandbox hands out, once. */
  attach(child: ChildProcess): void;
  /** The attempts so far, in order (at most MAX_RECORDS), and how many more there were. */
  readonly records: readonly NetRecord[];
  readonly dropped: number;
  /** The command ended: its listener and its connections are closed. Called again, nothing. */
  end(): void;
}

export function netSession(
  proxy: NetProxy,
  decide: (a: NetAsk) => Promise<NetAnswer>,
  onRecord?: (r: NetRecord) => void,
): NetSession {
  const records: NetRecord[] = [];
  let dropped = 0;
  const abort = new AbortController();
  let listener: Server | undefined;
  const asked = new Map<string, Promise<NetAnswer>>();
  let refused = 0;
  const judged = async (a: NetAsk): Promise<NetAnswer> => {
    if (abort.signal.aborted) return { allow: false, why: 'the command has ended' };
    if (refused >= MAX_REFUSED)
      return {
        allow: false,
        why: `${MAX_REFUSED} hosts were refused already in this command, so the rest are refused without asking; name the hosts it needs with --allow-net`,
      };
    const answer = await decide(a);
    if (!answer.allow) refused++;
    return answer;
  };
  const ctx = {
    // Once per host and port for this command: a retrying client asks (and prompts) once.
    decide: (a: NetAsk) => {
      const key = `${a.host} ${a.port}`;
      const known = asked.get(key);
      if (known) return known;
      const answer = judged(a);
      asked.set(key, answer);
      return answer;
    },
    record: (r: NetRecord) => {
      if (records.length < MAX_RECORDS) records.push(r);
      else dropped++;
      onRecord?.(r);
    },
    signal: abort.signal,
  };
  const end = () => {
    if (abort.signal.aborted) return;
    abort.abort();
    listener?.close();
  };
  return {
    attach(child) {
      child.once('message', (m: unknown, handle: unknown) => {
        if (isListener(m, handle) && !abort.signal.aborted) {
          listener = handle;
          handle.on('connection', (s) => proxy.handle(s, ctx));
        } else if (handle instanceof Server) handle.close();
        if (child.connected) child.disconnect(); // nothing else is ever read from the sandbox
      });
      child.once('exit', end);
    },
    get records() {
      return records;
    },
    get dropped() {
      return dropped;
    },
    end,
  };
}

/** The helper's one message: a server listening on the sandbox's loopback at PROXY_PORT. */
function isListener(m: unknown, handle: unknown): handle is Server {
  if (typeof m !== 'object' || m === null || (m as { mewcode?: unknown }).mewcode !== 'proxy-listener') return false;
  if (!(handle instanceof Server)) return false;
  const a = handle.address();
  return typeof a === 'object' && a !== null && a.address === '127.0.0.1' && a.port === PROXY_PORT;
}

/** `host:port` as a net permission names it (`[v6]:port`). */
export const hostPort = (host: string, port: number) => (isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`);

/**
 * The policy's answer for one connection, through the call's own check (flags, rules, prompt): the
 * access is `bash`'s, so `net(host)` rules and --allow-net speak to it. A loopback, private or
 * metadata address named as such is `local` (only a grant naming it reaches it); a name resolving to
 * one is reached only when an --allow-net entry names that address (`allowList`).
 */
export function policyDecide(
  authorize: (a: readonly Access[]) => Promise<true | string>,
  allowList: readonly string[],
): (a: NetAsk) => Promise<NetAnswer> {
  return async ({ host, port }) => {
    const access: NetAccess = {
      kind: 'net',
      host: hostPort(host, port),
      ...(isIP(host) !== 0 && isForbiddenIp(host) ? { local: true } : {}),
    };
    const may = await authorize([access]);
    if (may !== true) return { allow: false, why: may };
    return {
      allow: true,
      allowedAddress: (ip) => ip === host || allowList.some((g) => hostCovers(g, hostPort(ip, port))),
    };
  };
}

/** A line per refused host and port for the command's answer: HTTPS clients show only "403". */
export function refusedText(s: Pick<NetSession, 'records' | 'dropped'>): string {
  const refused = new Map<string, string>();
  for (const r of s.records)
    if (!r.allowed && !refused.has(hostPort(r.host, r.port))) refused.set(hostPort(r.host, r.port), r.why ?? '');
  if (refused.size === 0) return '';
  const named = [...refused].slice(0, MAX_NAMED);
  const lines = named.map(([h, why]) => `network: refused ${h}${why ? `: ${why}` : ''}`);
  if (refused.size > MAX_NAMED)
    lines.push(`network: and ${refused.size - MAX_NAMED} more hosts refused (meta.network lists them)`);
  if (s.dropped > 0) lines.push(`network: ${s.dropped} more connection attempts were not kept`);
  return `\n${lines.join('\n')}`;
}
