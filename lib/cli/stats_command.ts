/**
 * `mewcode stats [LOG] [--json]`: the audit trail's figures — per tool success, parse failures,
 * denials and latency, unknown tools, repeated calls, denials by rule, the slowest calls, tokens per
 * model. LOG (default: the agent's and MCP server's log) is read with its rotated files, oldest first.
 * Exit 0, 2 when there is no log to read. Main thread.
 */
import { readFileSync } from 'node:fs';
import { auditFiles, defaultAuditPath } from '../audit/log_file.ts';
import { statsText } from '../audit/print.ts';
import { auditStats } from '../audit/stats.ts';
import { type ParsedArgs, UsageError } from './args.ts';

export function runStats(args: ParsedArgs): number {
  const [given, ...extra] = args.positionals;
  if (extra.length) throw new UsageError(`stats takes one log file; unexpected "${extra[0]}".`);
  const log = given ?? defaultAuditPath();
  const files = auditFiles(log);
  if (files.length === 0)
    throw new UsageError(
      `There is no audit log at ${log}${given ? '' : ' (the agent and `mewcode mcp` write it unless --audit-log off)'}.`,
    );
  const lines = function* () {
    for (const f of files) {
      let text: string;
      try {
        text = readFileSync(f, 'utf8');
      } catch (e) {
        throw new UsageError(`The audit log ${f} cannot be read (${(e as NodeJS.ErrnoException).code ?? e}).`);
      }
      yield* text.split('\n');
    }
  };
  const stats = auditStats(lines());
  process.stdout.write(
    args.values.json ? `${JSON.stringify({ files, ...stats }, null, 2)}\n` : statsText(stats, files),
  );
  return 0;
}
