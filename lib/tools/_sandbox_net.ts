/**
 * bash's side of a sandbox whose network is filtered by host: a session per command with the
 * runtime's proxy (lib/sandbox/net_session.ts), each connection decided by this call's own policy
 * check, and what the answer says about it. Main thread.
 */
import type { NetAttempt } from '../core/tool_result.ts';
import type { WriteContext } from '../lanes/write_context.ts';
import { type NetSession, netSession, policyDecide } from '../sandbox/net_session.ts';
import { IPC_FD } from '../sandbox/proxy_launch.ts';

/** Attempts in the answer's meta; the rest are counted. */
const META_ATTEMPTS = 200;

export interface SandboxNet {
  session: NetSession;
  /** For supervise: the channel the sandbox hands its listener back through. */
  ipc: { fd: number; onSpawn: NetSession['attach'] };
}

/** The session for one command, when its sandbox's network is filtered; why not, when it cannot be. */
export function sandboxNetFor(
  ctx: WriteContext,
  onRecord?: (r: NetAttempt) => void,
): SandboxNet | undefined | { error: string } {
  const exec = ctx.exec;
  if (!exec.sandbox?.proxyNet) return undefined;
  if (!exec.netProxy || !ctx.authorizeMore)
    return { error: 'the sandbox filters its network by host, but this runtime has no proxy or policy for it' };
  const decide = policyDecide(ctx.authorizeMore, exec.netAllow ?? []);
  const session = netSession(exec.netProxy, decide, onRecord);
  return { session, ipc: { fd: IPC_FD, onSpawn: (child) => session.attach(child) } };
}

export function networkMeta(s: NetSession): { attempts: NetAttempt[]; more: number } {
  return {
    attempts: s.records.slice(0, META_ATTEMPTS),
    more: Math.max(0, s.records.length - META_ATTEMPTS) + s.dropped,
  };
}
