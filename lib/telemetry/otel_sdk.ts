/**
 * The OpenTelemetry SDK set up for one process: a tracer whose spans go in batches, and a meter whose
 * readings go periodically, to OTLP/HTTP (JSON) endpoints; `shutdown` sends what is left. Loaded only
 * by open_telemetry.ts, and only when an endpoint is configured: importing this module is what loads
 * the SDK. Nothing is registered globally: a program embedding MewCode keeps its own providers.
 * Main thread.
 */
import type { Meter, Tracer } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { version } from '../core/build_info.ts';
import type { OtelConfig } from './otel_config.ts';

export interface OtelSdk {
  tracer?: Tracer;
  meter?: Meter;
  /** Sends the spans and readings not yet sent, then stops; resolves even when the endpoint does not answer. */
  shutdown(): Promise<void>;
}

/** The instrumentation scope the spans and instruments are reported under. */
export const SCOPE = 'mewcode';

export function startSdk(config: OtelConfig): OtelSdk {
  const resource = defaultResource().merge(
    resourceFromAttributes({ ...config.resource, 'service.name': config.serviceName, 'service.version': version() }),
  );
  const stops: (() => Promise<void>)[] = [];
  const sdk: OtelSdk = {
    async shutdown() {
      await Promise.allSettled(stops.map((s) => s()));
    },
  };
  if (config.traces) {
    const exporter = new OTLPTraceExporter({ url: config.traces.url, headers: config.traces.headers });
    const provider = new TracerProvider({ resource, spanProcessors: [new BatchSpanProcessor({ exporter })] });
    sdk.tracer = provider.getTracer(SCOPE, version());
    stops.push(() => provider.shutdown());
  }
  if (config.metrics) {
    const exporter = new OTLPMetricExporter({ url: config.metrics.url, headers: config.metrics.headers });
    const reader = new PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: config.metricInterval,
      exportTimeoutMillis: Math.min(30_000, config.metricInterval),
    });
    const provider = new MeterProvider({ resource, readers: [reader] });
    sdk.meter = provider.getMeter(SCOPE, version());
    stops.push(() => provider.shutdown());
  }
  return sdk;
}
