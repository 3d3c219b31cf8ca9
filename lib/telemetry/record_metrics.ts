/**
 * Audit records as metric readings through an OpenTelemetry meter: counters of calls (by tool, stage
 * and outcome), policy denials (by step), refused arguments, unknown tools and model retries;
 * histograms of tokens and request durations (the GenAI conventions' own) and of call durations.
 * Attributes are bounded sets (a made-up tool name counts as `_OTHER`). Main thread.
 */
import type { Attributes, Meter } from '@opentelemetry/api';
import type { AuditCall, AuditRecord, AuditTurn } from '../core/audit_record.ts';
import { toolLabel, turnError } from './attributes.ts';

/** The GenAI conventions' advised buckets: tokens in powers of 4, seconds doubling from 10 ms. */
const TOKEN_BUCKETS = Array.from({ length: 14 }, (_, i) => 4 ** i);
const SECOND_BUCKETS = Array.from({ length: 14 }, (_, i) => 0.01 * 2 ** i);

export function metricsOf(meter: Meter): (r: AuditRecord) => void {
  const seconds = { unit: 's', advice: { explicitBucketBoundaries: SECOND_BUCKETS } };
  const m = {
    calls: meter.createCounter('mewcode.tool.calls', { description: 'Tool calls, by where they ended' }),
    denials: meter.createCounter('mewcode.policy.denials', { description: 'Calls the gate or the policy refused' }),
    parse: meter.createCounter('mewcode.tool.parse_failures', { description: 'Calls whose arguments were refused' }),
    unknown: meter.createCounter('mewcode.tool.unknown', { description: 'Calls of a tool that does not exist' }),
    retries: meter.createCounter('mewcode.model.retries', { description: 'Model requests retried' }),
    toolTime: meter.createHistogram('mewcode.tool.duration', { description: 'Tool call duration', ...seconds }),
    tokens: meter.createHistogram('gen_ai.client.token.usage', {
      description: 'Tokens used per model request',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    duration: meter.createHistogram('gen_ai.client.operation.duration', {
      description: 'Model request duration',
      ...seconds,
    }),
  };
  const onCall = (c: AuditCall) => {
    const tool = toolLabel(c);
    const base = { 'gen_ai.tool.name': tool, 'mewcode.call.stage': c.stage, 'mewcode.call.outcome': c.outcome };
    m.calls.add(1, base);
    m.toolTime.record(c.ms / 1000, base);
    if (c.stage === 'authorize' && c.outcome !== 'ok')
      m.denials.add(1, { 'gen_ai.tool.name': tool, 'mewcode.policy.step': c.decision?.by ?? 'gate' });
    if (c.stage === 'parse') m.parse.add(1, { 'gen_ai.tool.name': tool });
    if (c.outcome === 'unknown_tool') m.unknown.add(1, { 'mewcode.call.via': c.via });
  };
  const onTurn = (t: AuditTurn) => {
    const base: Attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': t.provider,
      'gen_ai.request.model': t.model,
    };
    m.duration.record(t.ms / 1000, t.error ? { ...base, 'error.type': turnError(t) } : base);
    if (t.retries) m.retries.add(t.retries, base);
    if (t.error) return;
    m.tokens.record(t.tokens.input, { ...base, 'gen_ai.token.type': 'input' });
    m.tokens.record(t.tokens.output, { ...base, 'gen_ai.token.type': 'output' });
  };
  return (r) => {
    if (r.type === 'call') onCall(r);
    else if (r.type === 'turn') onTurn(r);
  };
}
