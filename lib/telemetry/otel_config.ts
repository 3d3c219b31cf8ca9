/**
 * Whether and where to export OpenTelemetry, from the standard environment variables alone: an OTLP
 * endpoint for traces and one for metrics (each absent when not configured or switched off), the
 * headers for each, the service name and resource attributes. Pure: reading these costs nothing and
 * loads no OpenTelemetry code. Any thread.
 */

type Env = Readonly<Record<string, string | undefined>>;

export interface OtlpTarget {
  /** The full URL the OTLP/HTTP exporter posts to (…/v1/traces or …/v1/metrics). */
  url: string;
  headers: Record<string, string>;
}

export interface OtelConfig {
  traces?: OtlpTarget;
  metrics?: OtlpTarget;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, parsed. */
  resource: Record<string, string>;
  /** Milliseconds between metric exports (OTEL_METRIC_EXPORT_INTERVAL, default 60 s); the last is at shutdown. */
  metricInterval: number;
  /** What the user should know: a protocol asked for that is not spoken, a header that could not be read. */
  notes: string[];
}

const SIGNALS = { traces: 'TRACES', metrics: 'METRICS' } as const;

/** The configuration, or undefined when nothing is to be exported (no endpoint, or OTEL_SDK_DISABLED). */
export function otelConfig(env: Env = process.env): OtelConfig | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const notes: string[] = [];
  const traces = target(env, 'traces', notes);
  const metrics = target(env, 'metrics', notes);
  if (!traces && !metrics) return undefined;
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  return {
    ...(traces ? { traces } : {}),
    ...(metrics ? { metrics } : {}),
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'mewcode',
    resource: pairs(env.OTEL_RESOURCE_ATTRIBUTES, 'OTEL_RESOURCE_ATTRIBUTES', notes),
    metricInterval: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
    notes,
  };
}

/** One signal's endpoint: its own variable as given, or the general one with the signal's path added. */
function target(env: Env, signal: keyof typeof SIGNALS, notes: string[]): OtlpTarget | undefined {
  const S = SIGNALS[signal];
  const exporter = env[`OTEL_${S}_EXPORTER`]?.trim().toLowerCase();
  if (exporter === 'none') return undefined;
  const own = env[`OTEL_EXPORTER_OTLP_${S}_ENDPOINT`]?.trim();
  const general = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const url = own || (general ? `${general.replace(/\/+$/, '')}/v1/${signal}` : undefined);
  if (!url) return undefined;
  const protocol = (env[`OTEL_EXPORTER_OTLP_${S}_PROTOCOL`] ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (protocol && protocol !== 'http/json')
    notes.push(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: ${signal} go as OTLP over HTTP/JSON`);
  const headers = {
    ...pairs(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS', notes),
    ...pairs(env[`OTEL_EXPORTER_OTLP_${S}_HEADERS`], `OTEL_EXPORTER_OTLP_${S}_HEADERS`, notes),
  };
  return { url, headers };
}

/** `key1=value1,key2=value2`, each part percent-decoded (the W3C baggage form the variables use). */
function pairs(text: string | undefined, name: string, notes: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (text ?? '').split(',')) {
    if (!part.trim()) continue;
    const eq = part.indexOf('=');
    const key = eq > 0 ? decoded(part.slice(0, eq).trim()) : undefined;
    const value = eq > 0 ? decoded(part.slice(eq + 1).trim()) : undefined;
    if (key && value !== undefined) out[key] = value;
    // Not quoted: a header's part may be a secret.
    else notes.push(`${name}: a part that is not key=value was left out`);
  }
  return out;
}

function decoded(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
