/**
 * What an audit trail says about tool use, as data (`mewcode stats` prints it): per tool its calls,
 * success rate, argument parse failures, denials and latency; calls to tools that do not exist;
 * identical calls repeated within a run; denials by the step and rule that made them; the slowest
 * calls; model requests and tokens per model. Records it cannot read are counted, never fatal.
 */
import type { AuditCall, AuditRecord, AuditTurn } from '../core/audit_record.ts';

export interface ToolStats {
  tool: string;
  calls: number;
  ok: number;
  /** ok / calls. */
  successRate: number;
  /** Arguments refused before anything ran (stage `parse`). */
  parseFailures: number;
  parseFailureRate: number;
  /** Refused by the path gate or the policy. */
  denied: number;
  /** Failures by error code (denials and parse failures included). */
  errors: Record<string, number>;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export interface AuditStats {
  records: number;
  /** Lines that were not a record. */
  badLines: number;
  sessions: number;
  calls: number;
  tools: ToolStats[];
  /** Calls naming a tool that does not exist, by the name used. */
  unknown: { calls: number; rate: number; names: { name: string; count: number }[] };
  /** Calls identical (tool and arguments) to an earlier one of the same run or session. */
  repeats: { calls: number; rate: number; top: { tool: string; sha256: string; count: number; session: string }[] };
  denials: { by: string; source: string; count: number }[];
  slowest: { time: string; tool: string; ms: number; outcome: string; session: string }[];
  models: {
    provider: string;
    model: string;
    requests: number;
    input: number;
    output: number;
    retries: number;
    errors: number;
  }[];
}

const TOP = 10;

/** `lines`: the log's lines (JSON Lines); blank ones are skipped. */
export function auditStats(lines: Iterable<string>): AuditStats {
  const calls: AuditCall[] = [];
  const turns: AuditTurn[] = [];
  const sessions = new Set<string>();
  let records = 0;
  let badLines = 0;
  for (const line of lines) {
    if (!line.trim()) continue;
    const r = parseRecord(line);
    if (!r) {
      badLines++;
      continue;
    }
    records++;
    sessions.add(r.session);
    if (r.type === 'call') calls.push(r);
    else if (r.type === 'turn') turns.push(r);
  }
  const known = calls.filter((c) => c.stage !== 'unknown');
  return {
    records,
    badLines,
    sessions: sessions.size,
    calls: calls.length,
    tools: toolStats(known),
    unknown: unknownStats(calls),
    repeats: repeatStats(known),
    denials: denialStats(known),
    slowest: [...known]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, TOP)
      .map((c) => ({ time: c.time, tool: c.tool, ms: c.ms, outcome: c.outcome, session: c.session })),
    models: modelStats(turns),
  };
}

/** A record, or nothing when the line is not one (a cut line, another program's output). */
function parseRecord(line: string): AuditRecord | undefined {
  let r: unknown;
  try {
    r = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof r !== 'object' || r === null) return undefined;
  const o = r as Record<string, unknown>;
  if (typeof o.session !== 'string') return undefined;
  if (o.type === 'call' && typeof o.tool === 'string' && typeof o.ms === 'number' && typeof o.outcome === 'string')
    return r as AuditCall;
  if (o.type === 'turn' && typeof o.model === 'string' && typeof o.tokens === 'object' && o.tokens !== null)
    return r as AuditTurn;
  if (o.type === 'session') return r as AuditRecord;
  return undefined;
}

function toolStats(calls: readonly AuditCall[]): ToolStats[] {
  const by = groupBy(calls, (c) => c.tool);
  return [...by]
    .map(([tool, cs]) => {
      const ok = cs.filter((c) => c.outcome === 'ok').length;
      const parseFailures = cs.filter((c) => c.stage === 'parse').length;
      const errors: Record<string, number> = {};
      for (const c of cs) if (c.outcome !== 'ok') errors[c.outcome] = (errors[c.outcome] ?? 0) + 1;
      const ms = cs.map((c) => c.ms).sort((a, b) => a - b);
      return {
        tool,
        calls: cs.length,
        ok,
        successRate: ok / cs.length,
        parseFailures,
        parseFailureRate: parseFailures / cs.length,
        denied: cs.filter(isDenial).length,
        errors,
        p50Ms: percentile(ms, 0.5),
        p95Ms: percentile(ms, 0.95),
        maxMs: ms.at(-1) ?? 0,
      };
    })
    .sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool));
}

const isDenial = (c: AuditCall) => c.stage === 'authorize' && c.decision?.allow === false;

function unknownStats(calls: readonly AuditCall[]): AuditStats['unknown'] {
  const unknown = calls.filter((c) => c.stage === 'unknown' && c.outcome === 'unknown_tool');
  return {
    calls: unknown.length,
    rate: calls.length ? unknown.length / calls.length : 0,
    names: counted(unknown, (c) => c.tool).map(([name, count]) => ({ name, count })),
  };
}

function repeatStats(calls: readonly AuditCall[]): AuditStats['repeats'] {
  const by = groupBy(calls, (c) => `${c.session}\0${c.run ?? ''}\0${c.tool}\0${c.input.sha256}`);
  const repeated = [...by.values()].filter((cs) => cs.length > 1);
  const extra = repeated.reduce((n, cs) => n + cs.length - 1, 0);
  return {
    calls: extra,
    rate: calls.length ? extra / calls.length : 0,
    top: repeated
      .sort((a, b) => b.length - a.length)
      .slice(0, TOP)
      .map((cs) => {
        const c = cs[0] as AuditCall;
        return { tool: c.tool, sha256: c.input.sha256, count: cs.length, session: c.session };
      }),
  };
}

function denialStats(calls: readonly AuditCall[]): AuditStats['denials'] {
  const denied = calls.filter(isDenial);
  return counted(denied, (c) => `${c.decision?.by ?? '?'}\0${c.decision?.source ?? ''}`).map(([key, count]) => {
    const [by = '', source = ''] = key.split('\0');
    return { by, source, count };
  });
}

function modelStats(turns: readonly AuditTurn[]): AuditStats['models'] {
  return [...groupBy(turns, (t) => `${t.provider}\0${t.model}`).values()].map((ts) => {
    const t = ts[0] as AuditTurn;
    return {
      provider: t.provider,
      model: t.model,
      requests: ts.length,
      input: ts.reduce((n, x) => n + (x.tokens.input ?? 0), 0),
      output: ts.reduce((n, x) => n + (x.tokens.output ?? 0), 0),
      retries: ts.reduce((n, x) => n + (x.retries ?? 0), 0),
      errors: ts.filter((x) => x.error !== undefined).length,
    };
  });
}

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const t of items) {
    const k = key(t);
    const list = m.get(k);
    if (list) list.push(t);
    else m.set(k, [t]);
  }
  return m;
}

/** Keys by how often they occur, most first (ties by key). */
const counted = <T>(items: readonly T[], key: (t: T) => string): [string, number][] =>
  [...groupBy(items, key)]
    .map(([k, v]): [string, number] => [k, v.length])
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

/** The nearest-rank percentile of sorted values (0 for none). */
const percentile = (sorted: readonly number[], p: number) =>
  sorted.length ? (sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number) : 0;
