/**
 * The library entry: a runtime to call the tools (`createRuntime`), the agent loop (`runAgent`) and
 * providers (`makeProvider`). The same names are exported by the single-file bundle.
 */

export type { AgentEvent, AgentOptions, AgentResult } from './agent/loop.ts';
export { runAgent } from './agent/loop.ts';
export type { ToolResult } from './core/tool.ts';
export { makeProvider } from './llm/providers.ts';
export type { BatchCall, Runtime, RuntimeOptions } from './runtime/runtime.ts';
export { createRuntime } from './runtime/runtime.ts';
export { inspectTrust, type TrustView } from './settings/trust.ts';
