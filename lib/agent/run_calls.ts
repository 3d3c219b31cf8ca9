/**
 * Running one turn's tool calls, as the runtime's batch does: consecutive read-only calls together,
 * the rest one by one in order, each announced by tool_start/tool_end events. `agent` calls start a
 * sub-agent through the loop passed in (`runAgent`), with a filtered tool set. Main thread.
 */
import type { CallStage } from '../core/audit_record.ts';
import { runInGroups } from '../core/call_groups.ts';
import { callRecord } from '../core/call_record.ts';
import type { ToolDefinition } from '../core/registry.ts';
import { type CallOrigin, fail, type ToolResult } from '../core/tool.ts';
import type { Provider, ToolCall } from '../llm/provider.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { agentTool } from './agent_tool.ts';
import type { AgentToolName } from './filter.ts';
import { type DeferredTools, notFoundYet, runToolSearch, TOOL_SEARCH, usedFound } from './tool_search.ts';
import type { AgentEvent, AgentOptions, AgentResult } from './types.ts';

let seq = 0;

interface CallEnv extends AgentOptions {
  provider: Provider;
  model: string;
  depth: number;
  visible: Set<string>;
  signal: AbortSignal;
  emit: (e: AgentEvent) => void;
  /** The agent loop, for sub-agents. */
  runAgent: (o: AgentOptions) => Promise<AgentResult>;
  /** The run and turn the calls belong to (their journal entries record them). */
  origin: CallOrigin;
  /** The run's MCP tools kept behind tool_search, if any. */
  deferred?: DeferredTools | undefined;
}

/** Runs a turn's calls as the runtime's batch does: consecutive read-only ones together, the rest one by one. */
export const runCalls = (calls: readonly ToolCall[], env: CallEnv): Promise<ToolResult[]> =>
  runInGroups(
    calls,
    (c) => env.runtime.isReadOnly(c.name),
    (c) => runOne(c, env),
  );

async function runOne(c: ToolCall, env: CallEnv): Promise<ToolResult> {
  const start = ++seq;
  env.emit({ type: 'tool_start', id: c.id, name: c.name, input: c.input, seq: start, depth: env.depth });
  const result = await callTool(c, env);
  env.emit({ type: 'tool_end', id: c.id, name: c.name, result, seq: ++seq, depth: env.depth });
  return result;
}

async function callTool(c: ToolCall, env: CallEnv): Promise<ToolResult> {
  const start = { startedAt: Date.now(), started: performance.now() };
  if (env.signal.aborted)
    return answered(c, env, start, 'skipped', fail('cancelled', `${c.name} was not run: the run was cancelled.`));
  if ((env.visible.has(c.name) || env.deferred?.gone.has(c.name)) && isGone(c.name, env)) {
    const why = `${c.name} is no longer available: its MCP server is not connected any more. Go on without it.`;
    return answered(c, env, start, 'unknown', fail('unknown_tool', why));
  }
  if (!env.visible.has(c.name)) {
    if (env.deferred?.tools.has(c.name)) return answered(c, env, start, 'unknown', notFoundYet(c.name));
    const more = env.deferred ? `, and ${env.deferred.tools.size} MCP tools to find with tool_search` : '';
    const known = [...env.visible].join(', ');
    const why = `There is no tool named ${JSON.stringify(c.name)} in this run. Available tools: ${known}${more}.`;
    return answered(c, env, start, 'unknown', fail('unknown_tool', why));
  }
  if (c.badJson !== undefined) {
    const why = `The arguments for ${c.name} are not valid JSON: ${c.badJson.slice(0, 200)}`;
    return answered(c, env, start, 'parse', fail('invalid_args', why));
  }
  if (c.name === 'agent') {
    const r = await runSubAgent(c, env);
    return answered(c, env, start, r.code === 'invalid_args' && r.meta?.turns === undefined ? 'parse' : 'run', r);
  }
  if (c.name === TOOL_SEARCH && env.deferred) {
    const r = runToolSearch(c.input, env.deferred);
    return answered(c, env, start, r.code === 'invalid_args' ? 'parse' : 'run', r);
  }
  if (env.deferred) usedFound(env.deferred, c.name);
  return env.runtime.call(c.name, c.input, { signal: env.signal, origin: env.origin, callId: c.id });
}

/** An MCP tool whose server went away (its tools left the registry when its connection closed). */
const isGone = (name: string, env: CallEnv) => name.startsWith('mcp__') && !env.runtime.registry.get(name);

/** A call the loop answered itself, never reaching the runtime: recorded in the audit trail as the runtime's are. */
function answered(
  c: ToolCall,
  env: CallEnv,
  start: { startedAt: number; started: number },
  stage: CallStage,
  result: ToolResult,
): ToolResult {
  recordLoopAnswer(env, c, start, stage, result);
  return result;
}

/** The audit record of a call the loop answered itself (a cut turn's calls too: loop.ts). */
export function recordLoopAnswer(
  env: { runtime: Runtime; origin: CallOrigin },
  c: ToolCall,
  start: { startedAt: number; started: number },
  stage: CallStage,
  result: ToolResult,
): void {
  const { runtime, origin } = env;
  const input = c.badJson !== undefined ? c.badJson : c.input;
  const facts = { session: runtime.session, via: 'agent' as const, origin, callId: c.id, tool: c.name, input };
  runtime.record(callRecord({ ...facts, ...start, stage, result }, performance.now()));
}

async function runSubAgent(c: ToolCall, env: CallEnv): Promise<ToolResult> {
  const parsed = agentTool.parse(c.input);
  if (!parsed.ok) return parsed.error;
  const a = parsed.value;
  const r = await env.runAgent({
    task: a.prompt,
    provider: env.provider,
    model: env.model,
    runtime: env.runtime,
    signal: env.signal,
    depth: env.depth + 1,
    ...(env.maxTurns ? { maxTurns: env.maxTurns } : {}),
    // The sub-agent's run decides its own deferral and keeps its own found tools.
    ...(env.toolSearch !== undefined ? { toolSearch: env.toolSearch } : {}),
    ...(env.onEvent ? { onEvent: env.onEvent } : {}),
    filter: {
      readOnly: a.read_only ?? false,
      ...(a.allowed_tools ? { allowed: a.allowed_tools as AgentToolName[] } : {}),
      ...(a.disallowed_tools ? { disallowed: a.disallowed_tools as AgentToolName[] } : {}),
    },
  });
  if (r.ok)
    return {
      content: r.answer || '(the sub-agent finished without an answer)',
      isError: false,
      meta: { turns: r.turns, usage: r.usage },
    };
  return fail(
    r.reason === 'cancelled' ? 'cancelled' : 'io',
    `The sub-agent stopped: ${r.error ?? r.reason}.${r.answer ? ` Its last words: ${r.answer}` : ''}`,
    { turns: r.turns, usage: r.usage },
  );
}

export const toDef = (t: typeof agentTool): ToolDefinition => ({
  name: t.name,
  description: t.description,
  inputSchema: t.inputSchema,
  readOnly: t.readOnly,
  system: false,
});
