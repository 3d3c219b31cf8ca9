/**
 * Where the agent's and the MCP server's audit trail goes: the JSON Lines log (`--audit-log PATH`,
 * default the user's data directory, `off` for none), and OpenTelemetry when an OTLP endpoint is
 * configured (OTEL_EXPORTER_OTLP_ENDPOINT…; not loaded otherwise). A log the user named that cannot
 * be opened is a usage error; the default one that cannot is said on stderr and the run goes on
 * without it. `close` sends the telemetry not yet sent. Main thread.
 */
import { defaultAuditPath, openAuditLog } from '../audit/log_file.ts';
import type { AuditSink } from '../core/audit_record.ts';
import { openTelemetry } from '../telemetry/open_telemetry.ts';
import { type ParsedArgs, UsageError } from './args.ts';

export interface CliAudit {
  sinks: AuditSink[];
  close(): Promise<void>;
}

export async function auditOf(args: ParsedArgs): Promise<CliAudit> {
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
  const otel = await openTelemetry().catch((e: Error) => {
    // Telemetry that cannot start must not stop the run it would have reported.
    process.stderr.write(`mewcode: no OpenTelemetry this run: ${e?.message ?? e}\n`);
    return undefined;
  });
  if (otel) {
    for (const note of otel.notes) process.stderr.write(`mewcode: OpenTelemetry: ${note}\n`);
    sinks.push(otel.sink);
    closers.push(() => otel.shutdown());
  }
  return {
    sinks,
    async close() {
      for (const c of closers) await c();
    },
  };
}
