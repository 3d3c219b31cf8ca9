/**
 * What the sandbox takes from the runtime's flags and rules: the root, the network (all or none), the
 * --deny-read paths and the read-deny rules to mask. A host list in --allow-net (or --deny-net beside
 * a full --allow-net) is refused: bubblewrap gives a command all of the network or none of it, and
 * turning "these hosts" into either would be a silent surprise. Main thread.
 */
import path from 'node:path';
import { errValue, okValue, type Result } from '../core/result.ts';
import type { PathGate } from '../policy/path_gate.ts';
import type { Flags } from '../policy/permissions.ts';
import { readDenyOf } from '../policy/read_deny.ts';
import type { Rule } from '../policy/rules.ts';
import type { SandboxConfig } from './bwrap.ts';

export function sandboxConfigOf(
  gate: PathGate,
  flags: Flags,
  rules: readonly Rule[],
): Result<Omit<SandboxConfig, 'bwrap'>, string> {
  const net = flags.allow.net;
  const deny = flags.deny.net;
  const hosts = Array.isArray(net) && net.length > 0 && deny !== true ? `--allow-net=${net.join(',')}` : undefined;
  const except = net === true && Array.isArray(deny) && deny.length > 0 ? `--deny-net=${deny.join(',')}` : undefined;
  if (hosts || except)
    return errValue(
      `--sandbox cannot give a command only part of the network (${hosts ?? except}): bubblewrap gives it all of the network or none. Use --allow-net without hosts to give sandboxed commands the whole network, or drop --allow-net to give them none`,
    );
  const denied = flags.deny.read;
  const denyRules = readDenyOf({ allow: {}, deny: {} }, rules, gate); // the rules only: flag paths go as paths
  return okValue({
    root: gate.root,
    allowNet: net === true && !deny,
    denyRead: denied === true ? [gate.root] : (denied || []).map((p) => path.resolve(gate.root, p)),
    ...(denyRules ? { denyRules } : {}),
  });
}
