/**
 * The library entry: a runtime to call the tools (`createRuntime`), the agent loop (`runAgent`),
 * providers (`makeProvider`), the audit log (`openAuditLog`, `auditStats`) and the OpenTelemetry
 * audit sink (`openTelemetry`). The same names are exported by the single-file bundle.
 */

export type { AgentEvent, AgentOptions, AgentResult } from './agent/loop.ts';
export { runAgent } from './agent/loop.ts';
export { type AuditLog, type AuditLogOptions, auditFiles, defaultAuditPath, openAuditLog } from './audit/log_file.ts';
export { type AuditStats, auditStats } from './audit/stats.ts';
export type { AnswerForm, GlobData, GrepData, GrepLine, ReadFileData, ToolData } from './core/answers.ts';
export type { AuditCall, AuditRecord, AuditSession, AuditSink, AuditTurn } from './core/audit_record.ts';
export type { TodoItem, TodoStatus } from './core/todos.ts';
export type { ResultMeta, ToolResult } from './core/tool.ts';
export { MODEL_WORDING, type Wording } from './core/wording.ts';
export { makeProvider } from './llm/providers.ts';
export type { BatchCall, CallOptions, LimitsOption, Runtime, RuntimeOptions } from './runtime/runtime.ts';
export { createRuntime } from './runtime/runtime.ts';
export { inspectTrust, type TrustView } from './settings/trust.ts';
export type { Telemetry, TelemetryOptions } from './telemetry/open_telemetry.ts';
export { openTelemetry } from './telemetry/open_telemetry.ts';
