/**
 * What an audit trail says about tool use, as data (`mewcode stats` prints it): per tool its calls,
 * success rate, argument parse failures, denials and latency; calls to tools that do not exist;
 * identical calls repeated within a run; denials by the step and rule that made them; the slowest
 * calls; model requests and tokens per model. Records it cannot read are counted, never fatal.
 */
import { type AuditCall, type AuditRecord, type AuditTurn, CALL_STAGES } from '../core/audit_record.ts';

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
    repeats: repeatStats(known, calls.length),
    denials: denialStats(known),
    slowest: [...known]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, TOP)
      .map((c) => ({ time: c.time, tool: c.tool, ms: c.ms, outcome: c.outcome, session: c.session })),
    models: modelStats(turns),
  };
}

/**
 * A record, or nothing when the line is not one (a cut line, another program's output, a hand-edited
 * record): every field the figures use is checked for its type, so a hostile log is skipped line by
 * line, never fatal and never summed as text.
 */
function parseRecord(line: string): AuditRecord | undefined {
  let r: unknown;
  try {
    r = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(r) || typeof r.session !== 'string' || typeof r.time !== 'string') return undefined;
  if (r.type === 'call') return isCall(r) ? (r as unknown as AuditCall) : undefined;
  if (r.type === 'turn') return isTurn(r) ? (r as unknown as AuditTurn) : undefined;
  if (r.type === 'session') return r as unknown as AuditRecord;
  return undefined;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;
const isOptional = (x: unknown, type: 'string' | 'boolean') => x === undefined || typeof x === type;

function isCall(r: Record<string, unknown>): boolean {
  const { input, decision } = r;
  return (
    typeof r.tool === 'string' &&
    typeof r.outcome === 'string' &&
    (CALL_STAGES as readonly unknown[]).includes(r.stage) &&
    isCount(r.ms) &&
    isOptional(r.run, 'string') &&
    isObject(input) &&
    typeof input.sha256 === 'string' &&
    (decision === undefined ||
      (isObject(decision) &&
        typeof decision.allow === 'boolean' &&
        typeof decision.by === 'string' &&
        isOptional(decision.source, 'string')))
  );
}

function isTurn(r: Record<string, unknown>): boolean {
  const { tokens } = r;
  return (
    typeof r.model === 'string' &&
    typeof r.provider === 'string' &&
    isObject(tokens) &&
    isCount(tokens.input) &&
    isCount(tokens.output) &&
    isCount(r.retries) &&
    isOptional(r.error, 'string')
  );
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

/** `all`: every call, unknown ones included, as the unknown-tool rate counts them. */
function repeatStats(calls: readonly AuditCall[], all: number): AuditStats['repeats'] {
  const by = groupBy(calls, (c) => `${c.session}\0${c.run ?? ''}\0${c.tool}\0${c.input.sha256}`);
  const repeated = [...by.values()].filter((cs) => cs.length > 1);
  const extra = repeated.reduce((n, cs) => n + cs.length - 1, 0);
  return {
    calls: extra,
    rate: all ? extra / all : 0,
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
      input: ts.reduce((n, x) => n + x.tokens.input, 0),
      output: ts.reduce((n, x) => n + x.tokens.output, 0),
      retries: ts.reduce((n, x) => n + x.retries, 0),
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
