/**
 * Audit records as spans, made after the fact with the records' own start and end times: `chat
 * <model>` per model request, `execute_tool <tool>` per call. The spans of one agent run share a trace
 * under an `invoke_agent mewcode` span that starts with the run's first request and ends with its last
 * (a request that made no calls ends a run; a run still open is ended at `end()`, at its last record's
 * end). A call outside an agent run (MCP, the library) is a trace of its own. Main thread.
 */
import { ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { AuditCall, AuditRecord, AuditTurn } from '../core/audit_record.ts';
import { callAttributes, OTHER_TOOL, toolLabel, turnAttributes } from './attributes.ts';

/** Runs whose end was not seen that stay open; past this the oldest is ended (a library's long life). */
const OPEN_RUNS = 64;

interface OpenRun {
  span: Span;
  /** The end of its latest record (ms since the epoch). */
  end: number;
  tokens: { input: number; output: number };
}

export interface RecordSpans {
  record(r: AuditRecord): void;
  /** Ends the runs still open. */
  end(): void;
}

export function spansOf(tracer: Tracer): RecordSpans {
  const runs = new Map<string, OpenRun>();
  const close = (id: string, run: OpenRun) => {
    runs.delete(id);
    run.span.setAttributes({
      'gen_ai.usage.input_tokens': run.tokens.input,
      'gen_ai.usage.output_tokens': run.tokens.output,
    });
    run.span.end(run.end);
  };
  /** The run's span, started by its first record. */
  const runOf = (id: string, start: number, end: number): OpenRun => {
    let run = runs.get(id);
    if (!run) {
      const span = tracer.startSpan(
        'invoke_agent mewcode',
        {
          kind: SpanKind.INTERNAL,
          startTime: start,
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.name': 'mewcode',
            'gen_ai.conversation.id': id,
          },
        },
        ROOT_CONTEXT,
      );
      run = { span, end, tokens: { input: 0, output: 0 } };
      runs.set(id, run);
      const oldest = runs.keys().next().value;
      if (runs.size > OPEN_RUNS && oldest !== undefined) close(oldest, runs.get(oldest) as OpenRun);
    }
    run.end = Math.max(run.end, end);
    return run;
  };
  const onTurn = (t: AuditTurn) => {
    const start = Date.parse(t.time);
    const end = start + t.ms;
    const run = runOf(t.run, start, end);
    run.tokens.input += t.tokens.input;
    run.tokens.output += t.tokens.output;
    run.span.setAttributes({
      'gen_ai.provider.name': t.provider,
      'gen_ai.request.model': t.model,
      'mewcode.agent.depth': t.depth,
    });
    const span = tracer.startSpan(
      `chat ${t.model}`,
      { kind: SpanKind.CLIENT, startTime: start, attributes: turnAttributes(t) },
      trace.setSpan(ROOT_CONTEXT, run.span),
    );
    if (t.error) span.setStatus({ code: SpanStatusCode.ERROR, message: t.error.slice(0, 500) });
    span.end(end);
    if (t.error) run.span.setStatus({ code: SpanStatusCode.ERROR, message: t.stop ?? 'error' });
    // A request that asked for no calls is the run's last: its answer, or how it failed.
    if (t.calls === 0) close(t.run, run);
  };
  const onCall = (c: AuditCall) => {
    const start = Date.parse(c.time);
    const end = start + c.ms;
    const parent = c.run ? trace.setSpan(ROOT_CONTEXT, runOf(c.run, start, end).span) : ROOT_CONTEXT;
    const tool = toolLabel(c);
    const name = tool === OTHER_TOOL ? 'execute_tool' : `execute_tool ${tool}`;
    const span = tracer.startSpan(
      name,
      { kind: SpanKind.INTERNAL, startTime: start, attributes: callAttributes(c) },
      parent,
    );
    if (c.outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: c.outcome });
    span.end(end);
  };
  return {
    record(r) {
      if (r.type === 'turn') onTurn(r);
      else if (r.type === 'call') onCall(r);
    },
    end() {
      for (const [id, run] of [...runs]) close(id, run);
    },
  };
}
