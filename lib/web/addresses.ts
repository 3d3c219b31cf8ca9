/**
 * Which addresses the agent's network reach may connect to: never the machine itself, its private
 * networks or a cloud's metadata service unless that very address is allowed — no request forgery
 * through the agent. A host name is resolved once, all its addresses checked (one private address
 * among public ones refuses the name: a split answer is how DNS rebinding gets in), and the caller
 * connects to exactly the addresses checked, never resolving again. The machine's own interface
 * addresses and the networks they are on count as local, whatever range they are in. Documentation ranges
 * (203.0.113.0/24 and the like) are not refused: mirrors and test registries live there.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { NetAccess } from '../core/tool.ts';

/** Not globally reachable, or reaching the machine itself, its networks or cloud metadata. */
const FORBIDDEN_V4: [string, number][] = [
  ['0.0.0.0', 8], // "this network": 0.0.0.0 connects to the local host on Linux
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (carrier NAT, Tailscale)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, with 169.254.169.254 (AWS, GCP, Azure metadata)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // protocol assignments (192.0.0.192: Oracle's metadata)
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking, and fake-IP DNS setups
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, with the broadcast address
];
const FORBIDDEN_V6: [string, number][] = [
  ['::', 128],
  ['::1', 128],
  ['::', 96], // IPv4-compatible (deprecated)
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['fc00::', 7], // unique local (fd00:ec2::254: AWS metadata over IPv6)
  ['fe80::', 10],
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8],
];

const blocked = new BlockList();
for (const [a, p] of FORBIDDEN_V4) blocked.addSubnet(a, p, 'ipv4');
for (const [a, p] of FORBIDDEN_V6) blocked.addSubnet(a, p, 'ipv6');

/** An IPv6 literal (maybe with a dotted IPv4 tail or a zone) as its eight 16-bit words. */
function words(ip: string): number[] {
  let s = ip.split('%')[0] as string;
  const tail = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (tail) {
    const [b0, b1, b2, b3] = tail.slice(2).map(Number) as [number, number, number, number];
    s = `${tail[1]}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const [head, rest] = s.includes('::') ? (s.split('::') as [string, string]) : [s, undefined];
  const h = head ? head.split(':') : [];
  const t = rest === undefined || rest === '' ? [] : rest.split(':');
  const fill = rest === undefined ? [] : Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((w) => Number.parseInt(w, 16));
}

const v4of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address an IPv6 one carries, that a packet to it reaches: mapped, compatible, NAT64, 6to4. */
export function embeddedV4(ip: string): string | undefined {
  const w = words(ip);
  const zero = (a: number, b: number) => w.slice(a, b).every((x) => x === 0);
  const [w0, w1, w2, , , w5, w6, w7] = w as [number, number, number, number, number, number, number, number];
  if (zero(0, 5) && w5 === 0xffff) return v4of(w6, w7); // ::ffff:a.b.c.d
  if (zero(0, 4) && w[4] === 0xffff && w5 === 0) return v4of(w6, w7); // ::ffff:0:a.b.c.d (translated, SIIT)
  if (zero(0, 6)) return v4of(w6, w7); // ::a.b.c.d
  if (w0 === 0x64 && w1 === 0xff9b && zero(2, 6)) return v4of(w6, w7); // 64:ff9b::a.b.c.d
  if (w0 === 0x2002) return v4of(w1, w2); // 6to4: 2002:AABB:CCDD::
  return undefined;
}

// The machine's own addresses, public ones included: a service listening on all interfaces answers
// on each of them as it does on loopback. Read again after a while, as interfaces come and go.
const OWN_MS = 10_000;
// Its directly attached networks too: the neighbours on them are the machine's LAN, whatever range.
let own: { at: number; list: BlockList } | undefined;

function ownAddresses(): BlockList {
  const now = Date.now();
  if (own && now - own.at < OWN_MS) return own.list;
  const list = new BlockList();
  for (const found of Object.values(networkInterfaces()))
    for (const a of found ?? []) {
      const family = a.family === 'IPv4' ? 'ipv4' : 'ipv6';
      const bare = a.address.split('%')[0] as string;
      const prefix = Number(a.cidr?.split('/')[1]);
      if (Number.isInteger(prefix)) list.addSubnet(bare, prefix, family);
      else list.addAddress(bare, family);
    }
  own = { at: now, list };
  return list;
}

/** Whether `ip` (a literal) is one the agent may reach only when that address is allowed; anything else is refused too. */
export function isForbiddenIp(ip: string): boolean {
  const family = isIP(ip);
  const mine = ownAddresses();
  if (family === 4) return blocked.check(ip, 'ipv4') || mine.check(ip, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedV4(ip);
  if (v4 !== undefined && (blocked.check(v4, 'ipv4') || mine.check(v4, 'ipv4'))) return true;
  const bare = ip.split('%')[0] as string;
  return blocked.check(bare, 'ipv6') || mine.check(bare, 'ipv6');
}

/**
 * The addresses to connect to, or why none: `unresolved` (no address found: the host is merely
 * unreachable) or `local` (a refused address). `why` names no address — internal DNS answers are not
 * told — and `detail` does, for records.
 */
export type Checked =
  | { ok: true; addresses: string[] }
  | { ok: false; reason: 'unresolved' | 'local'; why: string; detail: string };

type Lookup = (host: string, o: { all: true; verbatim: true }) => Promise<{ address: string; family: number }[]>;

/**
 * `host` (a name, or an address in brackets or not) resolved once, all its addresses checked: each
 * must be one the agent may reach, or one `allowedAddress` names. The caller connects to these.
 */
export async function resolveChecked(
  host: string,
  allowedAddress: (ip: string) => boolean = () => false,
  resolve: Lookup = lookup,
): Promise<Checked> {
  const h = host.replace(/^\[|\]$/g, '');
  let found: { address: string }[];
  if (isIP(h)) found = [{ address: h }];
  else {
    try {
      found = await resolve(h, { all: true, verbatim: true });
    } catch (e) {
      const why = `${host} could not be resolved (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
      return { ok: false, reason: 'unresolved', why, detail: why };
    }
  }
  const addresses = found.map((a) => a.address);
  const refused = addresses.filter((a) => isForbiddenIp(a) && !allowedAddress(a));
  if (addresses.length === 0)
    return { ok: false, reason: 'unresolved', why: `${host} resolves to no address`, detail: `${host}: no address` };
  if (refused.length > 0) {
    const what = 'a loopback, private, link-local or metadata address';
    return {
      ok: false,
      reason: 'local',
      why: `${host} ${isIP(h) ? 'is' : 'resolves to'} ${what}, which is reached only when that address itself is allowed`,
      detail: `${host} resolves to ${refused.join(', ')}: ${what}`,
    };
  }
  return { ok: true, addresses };
}

/** `url`'s host as a net permission names it, its port always said (the scheme's default made explicit). */
export function hostOfUrl(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '');
  return port ? `${url.hostname}:${port}` : url.hostname;
}

/** The access that reaches `host` (host[:port]): `local` when it names a loopback, private or metadata address. */
export function netAccessTo(host: string): NetAccess {
  let name = host;
  try {
    name = new URL(`http://${host}`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    // not a host a URL can carry: judged by its text, and no connection will be made to it
  }
  return { kind: 'net', host, ...(isIP(name) !== 0 && isForbiddenIp(name) ? { local: true } : {}) };
}
