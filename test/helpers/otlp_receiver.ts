/**
 * A loopback OTLP/HTTP receiver on 127.0.0.1: collects the JSON bodies posted to /v1/traces and
 * /v1/metrics and answers 200 as a collector does; the spans and metric points it got, flattened for
 * tests to read. Closed when the test file ends.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  kind: number;
  start: number;
  end: number;
  status: { code: number; message: string };
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  scope: string;
}

export interface ReceivedPoint {
  metric: string;
  unit: string;
  attributes: Record<string, unknown>;
  /** A sum's value, or a histogram's sum. */
  value: number;
  /** A histogram's count. */
  count?: number;
}

export interface OtlpReceiver {
  url: string;
  /** Every request, with its path, headers and parsed body. */
  requests: { path: string; headers: Record<string, string | string[] | undefined>; body: unknown }[];
  spans(): ReceivedSpan[];
  points(): ReceivedPoint[];
  close(): Promise<void>;
}

const anyValue = (v: AnyValue): unknown =>
  v.stringValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.doubleValue ??
  v.boolValue ??
  v.arrayValue?.values?.map(anyValue);

const attrs = (list: KeyValue[] | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, anyValue(kv.value)]));

const nanosToMs = (n: string | number) => Number(BigInt(n) / 1000000n);

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpReceiver['requests'] = [];
  const server = createServer((req, res) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      data += c;
    });
    req.on('end', () => {
      requests.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(data || '{}') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  after(close);
  const bodies = (p: string) => requests.filter((r) => r.path === p).map((r) => r.body as Record<string, unknown[]>);
  return { url, requests, spans: () => bodies('/v1/traces').flatMap(spansOf), points: () => pointsOf(bodies), close };
}

// biome-ignore lint/suspicious/noExplicitAny: the OTLP JSON body, read as the receiver finds it
function spansOf(body: any): ReceivedSpan[] {
  // biome-ignore lint/suspicious/noExplicitAny: as above
  return (body.resourceSpans ?? []).flatMap((rs: any) =>
    // biome-ignore lint/suspicious/noExplicitAny: as above
    (rs.scopeSpans ?? []).flatMap((ss: any) =>
      // biome-ignore lint/suspicious/noExplicitAny: as above
      (ss.spans ?? []).map((s: any) => ({
        name: s.name,
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        kind: s.kind,
        start: nanosToMs(s.startTimeUnixNano),
        end: nanosToMs(s.endTimeUnixNano),
        status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
        attributes: attrs(s.attributes),
        resource: attrs(rs.resource?.attributes),
        scope: ss.scope?.name ?? '',
      })),
    ),
  );
}

/** The metric points of the last export: they are cumulative, so it holds every earlier one's, updated. */
// biome-ignore lint/suspicious/noExplicitAny: the OTLP JSON body, read as the receiver finds it
function pointsOf(bodies: (p: string) => any[]): ReceivedPoint[] {
  const out: ReceivedPoint[] = [];
  for (const body of bodies('/v1/metrics').slice(-1))
    for (const rm of body.resourceMetrics ?? [])
      for (const sm of rm.scopeMetrics ?? [])
        for (const m of sm.metrics ?? []) {
          for (const p of m.sum?.dataPoints ?? [])
            out.push({
              metric: m.name,
              unit: m.unit ?? '',
              attributes: attrs(p.attributes),
              value: Number(p.asInt ?? p.asDouble),
            });
          for (const p of m.histogram?.dataPoints ?? [])
            out.push({
              metric: m.name,
              unit: m.unit ?? '',
              attributes: attrs(p.attributes),
              value: Number(p.sum),
              count: Number(p.count),
            });
        }
  return out;
}
