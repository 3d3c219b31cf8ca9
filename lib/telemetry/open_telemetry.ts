/**
 * OpenTelemetry as an audit sink: spans and metrics made from the audit records (record_spans.ts,
 * record_metrics.ts). Configured by the standard variables (OTEL_EXPORTER_OTLP_ENDPOINT and the
 * rest, otel_config.ts): without an endpoint nothing is loaded and the answer is undefined, so a
 * process that does not export pays nothing. A program with its own OpenTelemetry set up passes its
 * tracer and meter instead. Main thread.
 */
import type { Meter, Tracer } from '@opentelemetry/api';
import type { AuditSink } from '../core/audit_record.ts';
import { otelConfig } from './otel_config.ts';

export interface TelemetryOptions {
  /** The variables to read (default: the process's). */
  env?: Readonly<Record<string, string | undefined>>;
  /** A tracer and a meter of the program's own: used as they are, the variables not read, nothing exported here. */
  tracer?: Tracer;
  meter?: Meter;
}

export interface Telemetry {
  /** Pass it to createRuntime's `audit` (with any other sink). */
  sink: AuditSink;
  /** Ends the agent runs still open and sends what is not sent yet; await it before the process exits. */
  shutdown(): Promise<void>;
  /** What the configuration did not allow (an unsupported protocol, an unreadable header), for the user. */
  notes: string[];
}

/** The telemetry sink, or undefined when no OTLP endpoint is configured (or OTEL_SDK_DISABLED=true). */
export async function openTelemetry(o: TelemetryOptions = {}): Promise<Telemetry | undefined> {
  if (o.tracer || o.meter) {
    const sink = await sinkOf(o.tracer, o.meter);
    return { sink: sink.record, shutdown: async () => sink.end(), notes: [] };
  }
  const config = otelConfig(o.env);
  if (!config) return undefined;
  const { startSdk } = await import('./otel_sdk.ts');
  const sdk = startSdk(config);
  const sink = await sinkOf(sdk.tracer, sdk.meter);
  let stopped: Promise<void> | undefined;
  return {
    sink: sink.record,
    shutdown() {
      stopped ??= (async () => {
        sink.end();
        await sdk.shutdown();
      })();
      return stopped;
    },
    notes: config.notes,
  };
}

async function sinkOf(tracer?: Tracer, meter?: Meter): Promise<{ record: AuditSink; end(): void }> {
  const spans = tracer ? (await import('./record_spans.ts')).spansOf(tracer) : undefined;
  const metrics = meter ? (await import('./record_metrics.ts')).metricsOf(meter) : undefined;
  return {
    record(r) {
      // A sink must not throw: telemetry that fails must not fail the call it reports.
      try {
        spans?.record(r);
        metrics?.(r);
      } catch {}
    },
    end() {
      try {
        spans?.end();
      } catch {}
    },
  };
}
