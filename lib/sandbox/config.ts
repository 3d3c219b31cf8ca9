/**
 * What the sandbox takes from the runtime's flags and rules: the root, the network, the --deny-read
 * paths and the read-deny rules to mask. The network is one of three: all of it (--allow-net without
 * hosts, nothing denied), filtered by host through the runtime's proxy (--allow-net=host,…; a
 * --deny-net list, or a deny or ask rule for connections, beside a bare --allow-net; an allow or ask
 * rule for connections without it: each connection is then decided by the policy), or none. Main
 * thread.
 */
import path from 'node:path';
import { okValue, type Result } from '../core/result.ts';
import type { PathGate } from '../policy/path_gate.ts';
import type { Flags } from '../policy/permissions.ts';
import { readDenyOf } from '../policy/read_deny.ts';
import { NET_RULE, type Rule } from '../policy/rules.ts';
import type { SandboxConfig } from './bwrap.ts';

export function sandboxConfigOf(
  gate: PathGate,
  flags: Flags,
  rules: readonly Rule[],
): Result<Omit<SandboxConfig, 'bwrap'>, string> {
  const denied = flags.deny.read;
  const denyRules = readDenyOf({ allow: {}, deny: {} }, rules, gate); // the rules only: flag paths go as paths
  const net = netOf(flags, rules);
  return okValue({
    root: gate.root,
    allowNet: net === 'all',
    ...(net === 'proxy' ? { proxyNet: true } : {}),
    denyRead: denied === true ? [gate.root] : (denied || []).map((p) => path.resolve(gate.root, p)),
    ...(denyRules ? { denyRules } : {}),
  });
}

function netOf(flags: Flags, rules: readonly Rule[]): 'all' | 'proxy' | 'none' {
  const allow = flags.allow.net;
  const deny = flags.deny.net;
  if (deny === true) return 'none';
  const denies = Array.isArray(deny) && deny.length > 0;
  // A rule that may speak to a connection: `net(…)`, or `*(…)` whose pattern may be a host.
  const speaks = (r: Rule) => r.tool === NET_RULE || (r.tool === '*' && r.pattern !== undefined);
  if (allow === true) return denies || rules.some((r) => speaks(r) && r.list !== 'allow') ? 'proxy' : 'all';
  if (Array.isArray(allow) && allow.length > 0) return 'proxy';
  return rules.some((r) => speaks(r) && r.list !== 'deny') ? 'proxy' : 'none';
}
