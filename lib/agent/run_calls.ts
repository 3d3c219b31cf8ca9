/**
 * Running one turn's tool calls, as the runtime's batch does: consecutive read-only calls together,
 * the rest one by one in order, each announced by tool_start/tool_end events. `agent` calls start a
 * sub-agent through the loop passed in (`runAgent`), with a filtered tool set. Main thread.
 */
import { runInGroups } from '../core/call_groups.ts';
import type { ToolDefinition } from '../core/registry.ts';
import { type CallOrigin, fail, type ToolResult } from '../core/tool.ts';
import type { Provider, ToolCall } from '../llm/provider.ts';
import { agentTool } from './agent_tool.ts';
import type { AgentToolName } from './filter.ts';
import { type DeferredTools, notFoundYet, runToolSearch, TOOL_SEARCH } from './tool_search.ts';
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
  if (env.signal.aborted) return fail('cancelled', `${c.name} was not run: the run was cancelled.`);
  if (!env.visible.has(c.name)) {
    if (env.deferred?.tools.has(c.name)) return notFoundYet(c.name);
    const more = env.deferred ? `, and ${env.deferred.tools.size} MCP tools to find with tool_search` : '';
    return fail(
      'unknown_tool',
      `There is no tool named ${JSON.stringify(c.name)} in this run. Available tools: ${[...env.visible].join(', ')}${more}.`,
    );
  }
  if (c.badJson !== undefined)
    return fail('invalid_args', `The arguments for ${c.name} are not valid JSON: ${c.badJson.slice(0, 200)}`);
  if (c.name === 'agent') return runSubAgent(c, env);
  if (c.name === TOOL_SEARCH && env.deferred) return runToolSearch(c.input, env.deferred);
  return env.runtime.call(c.name, c.input, { signal: env.signal, origin: env.origin });
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
