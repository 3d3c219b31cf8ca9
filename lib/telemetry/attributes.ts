/**
 * The attributes spans and metrics share, named by the OpenTelemetry GenAI semantic conventions where
 * they name the thing (gen_ai.*, error.type) and under `mewcode.` where they do not. Made from an audit
 * record's facts only: never a call's arguments, a result's text or a file's content. Any thread.
 */
import type { Attributes } from '@opentelemetry/api';
import type { AuditCall, AuditTurn } from '../core/audit_record.ts';

/** What a tool name the model made up (no such tool) is reported as where cardinality matters. */
export const OTHER_TOOL = '_OTHER';

/** The tool's name for a metric or a span name: a name no tool has is the model's text, unbounded. */
export const toolLabel = (c: AuditCall): string => (c.outcome === 'unknown_tool' ? OTHER_TOOL : c.tool);

/** The name as the model gave it, cut to a length a backend keeps. */
const given = (name: string) => (name.length > 128 ? `${name.slice(0, 128)}...` : name);

export function callAttributes(c: AuditCall): Attributes {
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': given(c.tool),
    'gen_ai.tool.type': 'function',
    ...(c.callId ? { 'gen_ai.tool.call.id': c.callId } : {}),
    ...(c.run ? { 'gen_ai.conversation.id': c.run } : {}),
    ...(c.turn !== undefined ? { 'mewcode.turn': c.turn } : {}),
    'mewcode.session.id': c.session,
    'mewcode.call.via': c.via,
    'mewcode.call.stage': c.stage,
    'mewcode.call.outcome': c.outcome,
    'mewcode.call.input_bytes': c.input.bytes,
    'mewcode.call.output_bytes': c.bytesOut,
    ...(c.images ? { 'mewcode.call.images': c.images } : {}),
    ...decisionAttributes(c),
    ...(c.sandboxed !== undefined ? { 'mewcode.sandboxed': c.sandboxed } : {}),
    ...(c.exitCode !== undefined && c.exitCode !== null ? { 'process.exit.code': c.exitCode } : {}),
    ...(c.limitHit ? { 'mewcode.limit_hit': c.limitHit.limit } : {}),
    ...(c.outcome !== 'ok' ? { 'error.type': c.outcome } : {}),
  };
}

/** Who decided: the step, and what in it (a rule as written, a mode, a hook's command) — never the reason's text. */
function decisionAttributes(c: AuditCall): Attributes {
  const d = c.decision;
  if (!d) return {};
  return {
    'mewcode.policy.allow': d.allow,
    'mewcode.policy.step': d.by,
    ...(d.source ? { 'mewcode.policy.source': d.source } : {}),
  };
}

/** The request's own facts: provider, model, tokens, stop reason. */
export function turnAttributes(t: AuditTurn): Attributes {
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': t.provider,
    'gen_ai.request.model': t.model,
    'gen_ai.conversation.id': t.run,
    'gen_ai.usage.input_tokens': t.tokens.input,
    'gen_ai.usage.output_tokens': t.tokens.output,
    ...(t.stop ? { 'gen_ai.response.finish_reasons': [t.stop] } : {}),
    'mewcode.session.id': t.session,
    'mewcode.turn': t.turn,
    'mewcode.agent.depth': t.depth,
    'mewcode.model.retries': t.retries,
    'mewcode.turn.calls': t.calls,
    ...(t.error ? { 'error.type': turnError(t) } : {}),
  };
}

/** A failed request's error.type: cancelled, or error (the provider's message goes in the span's status). */
export const turnError = (t: AuditTurn): string => (t.stop === 'cancelled' ? 'cancelled' : 'error');
