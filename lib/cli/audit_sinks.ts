/**
 * Where the agent's and the MCP server's audit trail goes: the JSON Lines log (`--audit-log PATH`,
 * default the user's data directory, `off` for none). A log the user named that cannot be opened is a
 * usage error; the default one that cannot is said on stderr and the run goes on without it. Main thread.
 */
import { defaultAuditPath, openAuditLog } from '../audit/log_file.ts';
import type { AuditSink } from '../core/audit_record.ts';
import { type ParsedArgs, UsageError } from './args.ts';

export interface CliAudit {
  sinks: AuditSink[];
  close(): Promise<void>;
}

export function auditOf(args: ParsedArgs): CliAudit {
  const flag = args.values['audit-log'];
  const sinks: AuditSink[] = [];
  const closers: (() => void | Promise<void>)[] = [];
  if (flag === '') throw new UsageError('--audit-log needs a file path, or off.');
  if (flag !== 'off') {
    const named = flag !== undefined;
    const log = openAuditLog(named ? flag : defaultAuditPath(), { own: !named });
    if (log.ok) {
      sinks.push(log.value.sink);
      closers.push(() => log.value.close());
    } else if (named) throw new UsageError(`${log.error}.`);
    else process.stderr.write(`mewcode: no audit trail this run: ${log.error}\n`);
  }
  return {
    sinks,
    async close() {
      for (const c of closers) await c();
    },
  };
}
