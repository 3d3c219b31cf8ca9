/**
 * The audit record of one call, made from what the call was given and what it ended in: the
 * registry's trace says where it ended, the result's meta says who decided and what bounded it. The
 * arguments go as a digest and a size, and themselves: the runtime's sink drops them unless it was asked
 * to keep them (runtime.ts `auditInputs`). Main thread.
 */
import { createHash } from 'node:crypto';
import type { AuditCall, CallStage, CallVia } from './audit_record.ts';
import type { CallOrigin, ToolResult } from './tool.ts';

export interface CallFacts {
  session: string;
  via: CallVia;
  origin?: CallOrigin;
  callId?: string;
  tool: string;
  input: unknown;
  /** When the call started: wall clock (ms since the epoch) and the monotonic clock. */
  startedAt: number;
  started: number;
  stage: CallStage;
  result: ToolResult;
}

export function callRecord(f: CallFacts, now: number): AuditCall {
  const json = JSON.stringify(f.input) ?? 'null';
  const r = f.result;
  const m = r.meta;
  return {
    type: 'call',
    time: new Date(f.startedAt).toISOString(),
    session: f.session,
    via: f.via,
    ...(f.origin ? { run: f.origin.run, turn: f.origin.turn } : {}),
    ...(f.callId ? { callId: f.callId } : {}),
    tool: f.tool,
    input: {
      sha256: createHash('sha256').update(json).digest('hex'),
      bytes: Buffer.byteLength(json),
      value: f.input,
    },
    stage: f.stage,
    ...decisionOf(f.stage, r),
    outcome: r.isError ? (r.code ?? 'internal') : 'ok',
    ms: Math.round((now - f.started) * 10) / 10,
    bytesOut: Buffer.byteLength(r.content),
    ...(r.images?.length ? { images: r.images.length } : {}),
    ...(m?.sandboxed !== undefined ? { sandboxed: m.sandboxed } : {}),
    ...(m?.limits ? { limits: m.limits } : {}),
    ...(m?.limitHit ? { limitHit: m.limitHit } : {}),
    ...(m?.exitCode !== undefined ? { exitCode: m.exitCode } : {}),
  };
}

/** The policy's decision; a refusal before the policy (a path outside the root, a denied path) is the gate's. */
function decisionOf(stage: CallStage, r: ToolResult): Pick<AuditCall, 'decision'> {
  if (r.meta?.policy) return { decision: r.meta.policy };
  if (stage === 'authorize' && r.isError)
    return { decision: { allow: false, by: 'gate', reason: r.content, ...(r.code ? { source: r.code } : {}) } };
  return {};
}
