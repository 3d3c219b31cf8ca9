/**
 * The agent loop: ask the model, run the tools it calls — consecutive read-only calls together (the
 * read lane's pool), writes one at a time in order (the write lane) — and answer in request order,
 * until it stops calling tools. Denied calls are answered by the policy without running; Ctrl-C
 * stops what runs and answers the rest as cancelled; turns made only of unknown tools trip a breaker;
 * max turns bound the run. Sub-agents are this same loop with a filtered tool set. Main thread.
 */
import { runInGroups } from '../core/call_groups.ts';
import type { ToolDefinition } from '../core/registry.ts';
import { fail, type ToolResult } from '../core/tool.ts';
import { describeProviderError, type Message, type Provider, type ToolCall } from '../llm/provider.ts';
import { DEFAULT_MODELS, makeProvider, type ProviderName } from '../llm/providers.ts';
import type { Runtime } from '../runtime.ts';
import { agentTool } from './agent_tool.ts';
import { type AgentToolName, type SubAgentFilter, subAgentTools } from './filter.ts';
import { systemPrompt } from './system_prompt.ts';

export const DEFAULT_MAX_TURNS = 25;
export const MAX_TOKENS = 8192;

export type StopReason = 'end' | 'max_turns' | 'unknown_tools' | 'cancelled' | 'error';

export type AgentEvent =
  | { type: 'turn'; turn: number; depth: number }
  | { type: 'text'; delta: string; depth: number }
  | { type: 'tool_start'; id: string; name: string; input: unknown; seq: number; depth: number }
  | { type: 'tool_end'; id: string; name: string; result: ToolResult; seq: number; depth: number }
  | { type: 'done'; reason: StopReason; answer: string; error?: string; depth: number };

export interface AgentOptions {
  task: string;
  /** A provider, or its name (keys and base URLs then come from the environment). */
  provider: Provider | ProviderName;
  /** Default: the provider's default model. */
  model?: string;
  runtime: Runtime;
  maxTurns?: number;
  signal?: AbortSignal;
  onEvent?: (e: AgentEvent) => void;
  /** Restricts the tools (sub-agents). */
  filter?: SubAgentFilter;
  /** 0 for the top-level agent. */
  depth?: number;
}

export interface AgentResult {
  ok: boolean;
  reason: StopReason;
  answer: string;
  error?: string;
  turns: number;
  transcript: Message[];
}

let seq = 0;

export async function runAgent(options: AgentOptions): Promise<AgentResult> {
  let provider: Provider;
  if (typeof options.provider === 'string') {
    const made = makeProvider({ provider: options.provider });
    if (!made.ok) return { ok: false, reason: 'error', answer: '', error: made.error, turns: 0, transcript: [] };
    provider = made.value;
  } else provider = options.provider;
  const o = { ...options, provider, model: options.model ?? DEFAULT_MODELS[provider.name] };
  const depth = o.depth ?? 0;
  const emit = (e: AgentEvent) => o.onEvent?.(e);
  const signal = o.signal ?? new AbortController().signal;
  const maxTurns = o.maxTurns ?? DEFAULT_MAX_TURNS;
  const breakerAt = depth === 0 ? 3 : 2;
  const rt = o.runtime;
  const base: ToolDefinition[] =
    rt.policy.mode === 'plan' ? rt.registry.readOnlyDefinitions() : rt.registry.definitions();
  // Sub-agents never get `agent`; the top level gets it outside plan mode.
  const withAgent = depth === 0 && rt.policy.mode !== 'plan' ? [...base, toDef(agentTool)] : base;
  const tools = o.filter ? subAgentTools(withAgent, o.filter) : withAgent;
  const visible = new Set(tools.map((t) => t.name));
  // Skills loaded with load_skill stay pinned in the system prompt for the following turns.
  const activeSkills: { name: string; body: string }[] = [];
  const catalog = rt.skills.list().map((s) => `${s.name}: ${s.description}`);
  const prompt = () => systemPrompt({ root: rt.root, mode: rt.policy.mode, skills: catalog, activeSkills });
  const transcript: Message[] = [{ role: 'user', content: o.task }];
  let unknownStreak = 0;
  const finish = (reason: StopReason, answer: string, turns: number, error?: string): AgentResult => {
    emit({ type: 'done', reason, answer, ...(error ? { error } : {}), depth });
    return { ok: reason === 'end', reason, answer, ...(error ? { error } : {}), turns, transcript };
  };

  for (let turn = 1; turn <= maxTurns; turn++) {
    if (signal.aborted) return finish('cancelled', '', turn - 1, 'cancelled before the model was asked');
    emit({ type: 'turn', turn, depth });
    let t: Awaited<ReturnType<Provider['turn']>>;
    try {
      t = await o.provider.turn({
        model: o.model,
        system: prompt(),
        messages: transcript,
        tools,
        maxTokens: MAX_TOKENS,
        signal,
        onText: (delta) => emit({ type: 'text', delta, depth }),
      });
    } catch (e) {
      if (signal.aborted) return finish('cancelled', '', turn, 'cancelled while the model was answering');
      return finish('error', '', turn, describeProviderError(o.provider.name, e));
    }
    transcript.push({ role: 'assistant', text: t.text, calls: t.calls });
    if (t.calls.length === 0) return finish('end', t.text, turn);
    const results = await runCalls(t.calls, { ...o, depth, visible, signal, emit });
    for (const r of results) {
      const skill = r?.meta?.skill as { name: string; body: string } | undefined;
      if (skill && !activeSkills.some((s) => s.name === skill.name)) activeSkills.push(skill);
    }
    transcript.push({
      role: 'tool_results',
      results: t.calls.map((c, i) => ({
        id: c.id,
        name: c.name,
        content: results[i]?.content ?? '',
        isError: results[i]?.isError ?? true,
      })),
    });
    if (signal.aborted) return finish('cancelled', t.text, turn, 'cancelled while tools ran');
    unknownStreak = t.calls.every((c) => !visible.has(c.name)) ? unknownStreak + 1 : 0;
    if (unknownStreak >= breakerAt) {
      return finish(
        'unknown_tools',
        t.text,
        turn,
        `stopped: ${breakerAt} turns in a row called only tools that do not exist (${[...new Set(t.calls.map((c) => c.name))].join(', ')})`,
      );
    }
  }
  return finish(
    'max_turns',
    '',
    maxTurns,
    `stopped after ${maxTurns} turns without a final answer; raise --max-turns or split the task`,
  );
}

interface CallEnv extends AgentOptions {
  provider: Provider;
  model: string;
  depth: number;
  visible: Set<string>;
  signal: AbortSignal;
  emit: (e: AgentEvent) => void;
}

/** Runs a turn's calls as the runtime's batch does: consecutive read-only ones together, the rest one by one. */
const runCalls = (calls: readonly ToolCall[], env: CallEnv): Promise<ToolResult[]> =>
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
    return fail(
      'unknown_tool',
      `There is no tool named ${JSON.stringify(c.name)} in this run. Available tools: ${[...env.visible].join(', ')}.`,
    );
  }
  if (c.badJson !== undefined)
    return fail('invalid_args', `The arguments for ${c.name} are not valid JSON: ${c.badJson.slice(0, 200)}`);
  if (c.name === 'agent') return runSubAgent(c, env);
  return env.runtime.call(c.name, c.input, { signal: env.signal });
}

async function runSubAgent(c: ToolCall, env: CallEnv): Promise<ToolResult> {
  const parsed = agentTool.parse(c.input);
  if (!parsed.ok) return parsed.error;
  const a = parsed.value;
  const r = await runAgent({
    task: a.prompt,
    provider: env.provider,
    model: env.model,
    runtime: env.runtime,
    signal: env.signal,
    depth: env.depth + 1,
    ...(env.maxTurns ? { maxTurns: env.maxTurns } : {}),
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
      meta: { turns: r.turns },
    };
  return fail(
    r.reason === 'cancelled' ? 'cancelled' : 'io',
    `The sub-agent stopped: ${r.error ?? r.reason}.${r.answer ? ` Its last words: ${r.answer}` : ''}`,
    { turns: r.turns },
  );
}

const toDef = (t: typeof agentTool): ToolDefinition => ({
  name: t.name,
  description: t.description,
  inputSchema: t.inputSchema,
  readOnly: t.readOnly,
  system: false,
});
