/**
 * `mewcode stats` as text: the audit trail's figures (stats.ts) as aligned tables, the most used tools
 * first. Control characters in names are escaped: a tool name or rule came from a model or a file.
 */
import { escapeControl } from '../core/text.ts';
import type { AuditStats } from './stats.ts';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const ms = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`);

/** Rows as columns padded to their widest cell; numbers right-aligned. */
function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) =>
    r
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(head), ...rows.map(line)].join('\n')}\n`;
}

export function statsText(s: AuditStats, files: readonly string[]): string {
  const out: string[] = [];
  out.push(
    `${s.calls} calls in ${s.sessions} sessions (${files.length} file${files.length === 1 ? '' : 's'}: ${files.map(escapeControl).join(', ')})${s.badLines ? `; ${s.badLines === 1 ? '1 line was' : `${s.badLines} lines were`} not a record` : ''}\n`,
  );
  if (s.tools.length)
    out.push(
      table(
        ['tool', 'calls', 'success', 'parse fail', 'denied', 'p50', 'p95', 'max'],
        s.tools.map((t) => [
          escapeControl(t.tool),
          String(t.calls),
          pct(t.successRate),
          pct(t.parseFailureRate),
          String(t.denied),
          ms(t.p50Ms),
          ms(t.p95Ms),
          ms(t.maxMs),
        ]),
      ),
    );
  out.push(
    `unknown tools: ${s.unknown.calls} calls (${pct(s.unknown.rate)})${s.unknown.names.length ? `: ${s.unknown.names.map((n) => `${escapeControl(n.name)} ×${n.count}`).join(', ')}` : ''}\n`,
  );
  out.push(`repeated identical calls: ${s.repeats.calls} (${pct(s.repeats.rate)})\n`);
  for (const r of s.repeats.top) out.push(`  ${escapeControl(r.tool)} ×${r.count} (input ${r.sha256.slice(0, 12)})\n`);
  if (s.denials.length)
    out.push(
      `denials\n${table(
        ['step', 'by', 'count'],
        s.denials.map((d) => [escapeControl(d.by), escapeControl(d.source), String(d.count)]),
      )}`,
    );
  if (s.slowest.length)
    out.push(
      `slowest calls\n${table(
        ['tool', 'time', 'took', 'outcome'],
        s.slowest.map((c) => [escapeControl(c.tool), escapeControl(c.time), ms(c.ms), escapeControl(c.outcome)]),
      )}`,
    );
  if (s.models.length)
    out.push(
      `model requests\n${table(
        ['model', 'requests', 'input tokens', 'output tokens', 'retries', 'failed'],
        s.models.map((m) => [
          escapeControl(`${m.provider}/${m.model}`),
          String(m.requests),
          String(m.input),
          String(m.output),
          String(m.retries),
          String(m.errors),
        ]),
      )}`,
    );
  return out.join('');
}
