/**
 * What one agent run holds from turn to turn: the options it was given with the provider resolved,
 * the tools it may call, its system prompt (with the skills it loaded pinned), its context budget,
 * its transcript and token totals; and how it counts tokens and ends. The loop (loop.ts) drives it.
 * Main thread.
 */
import { randomBytes } from 'node:crypto';
import type { ToolDefinition } from '../core/registry.ts';
import type { TodoItem } from '../core/todos.ts';
import type { Message, Provider, Usage } from '../llm/provider.ts';
import type { RetryNotice } from '../llm/retry.ts';
import { agentTool } from './agent_tool.ts';
import { contextBudget } from './context_budget.ts';
import { subAgentTools } from './filter.ts';
import { type JobWatch, watchJobs } from './job_watch.ts';
import { toDef } from './run_calls.ts';
import { systemPrompt } from './system_prompt.ts';
import { type DeferredTools, deferTools } from './tool_search.ts';
import type { AgentEvent, AgentOptions, AgentResult, StopReason } from './types.ts';

export const DEFAULT_MAX_TURNS = 25;
export const MAX_TOKENS = 8192;

/** The run's options once the provider is an object and the model is named. */
type ResolvedOptions = AgentOptions & { provider: Provider; model: string };

export interface Run {
  /** The run's id, recorded with the journal entries of its calls (with the turn). */
  id: string;
  o: ResolvedOptions;
  depth: number;
  emit: (e: AgentEvent) => void;
  signal: AbortSignal;
  maxTurns: number;
  /** Turns in a row that call only unknown tools before the run stops. */
  breakerAt: number;
  /** What each request sends; tools found with tool_search join it (the same array as `deferred.sent`). */
  tools: ToolDefinition[];
  /** The tools the model may call (the same set as `deferred.visible`). */
  visible: Set<string>;
  /** MCP tools kept behind tool_search, when they would take too much of the context. */
  deferred?: DeferredTools;
  activeSkills: { name: string; body: string }[];
  /** The plan as the run's last successful todo_write left it: shown as it changes, carried across compaction. */
  todos: readonly TodoItem[];
  prompt: () => string;
  budget: number;
  maxTokens: number;
  /** Input tokens a request may carry: the budget less the answer's share. */
  limit: number;
  /** Replaced by compaction, so always read it from here. */
  transcript: Message[];
  usedIds: Set<string>;
  unknownStreak: number;
  /** The run's totals, the same object the result carries. */
  usage: Usage;
  onRetry: (notice: RetryNotice) => void;
  /** Background jobs: ends told to the model, the run's own stopped at its end. */
  jobs: JobWatch;
}

export function startRun(o: ResolvedOptions, usage: Usage): Run {
  const depth = o.depth ?? 0;
  const emit = (e: AgentEvent) => o.onEvent?.(e);
  const signal = o.signal ?? new AbortController().signal;
  const maxTurns = o.maxTurns ?? DEFAULT_MAX_TURNS;
  const breakerAt = depth === 0 ? 3 : 2;
  const rt = o.runtime;
  // Skills loaded with load_skill stay pinned in the system prompt for the following turns.
  const activeSkills: { name: string; body: string }[] = [];
  const catalog = rt.skills.list().map((s) => `${s.name}: ${s.description}`);
  const prompt = () => systemPrompt({ root: rt.root, mode: rt.policy.mode, skills: catalog, activeSkills });
  // The budget covers the request and the answer: the answer's share is reserved out of it.
  const budget = o.contextTokens ?? contextBudget(o.model);
  const maxTokens = Math.min(MAX_TOKENS, Math.floor(budget / 4));
  const { sent: tools, deferred } = deferTools(toolsOf(o, depth), budget, o.toolSearch ?? rt.toolSearch);
  if (deferred)
    emit({
      type: 'notice',
      message: `tools: ${deferred.tools.size} MCP tools are deferred behind tool_search to save context`,
      depth,
    });
  return {
    id: randomBytes(4).toString('hex'),
    o,
    depth,
    emit,
    jobs: watchJobs(rt, emit, depth),
    signal,
    maxTurns,
    breakerAt,
    tools,
    visible: deferred?.visible ?? new Set(tools.map((t) => t.name)),
    ...(deferred ? { deferred } : {}),
    activeSkills,
    todos: [],
    prompt,
    budget,
    maxTokens,
    limit: budget - maxTokens,
    transcript: [{ role: 'user', content: o.task }],
    usedIds: new Set<string>(),
    unknownStreak: 0,
    usage,
    onRetry: (notice: RetryNotice) => emit({ type: 'retry', notice, depth }),
  };
}

/** The tools the model sees: read-only ones in plan mode, `agent` at the top level, a sub-agent's filter applied. */
function toolsOf(o: ResolvedOptions, depth: number): ToolDefinition[] {
  const rt = o.runtime;
  const base: ToolDefinition[] =
    rt.policy.mode === 'plan' ? rt.registry.readOnlyDefinitions() : rt.registry.definitions();
  // Sub-agents never get `agent`; the top level gets it outside plan mode.
  const withAgent = depth === 0 && rt.policy.mode !== 'plan' ? [...base, toDef(agentTool)] : base;
  return o.filter ? subAgentTools(withAgent, o.filter) : withAgent;
}

/** Adds a request's tokens to the run's totals and reports them. */
export function count(run: Run, u: Usage | undefined, turn: number): void {
  if (!u) return;
  run.usage.input += u.input;
  run.usage.output += u.output;
  run.emit({ type: 'usage', turn, usage: u, total: { ...run.usage }, depth: run.depth });
}

/** Ends the run: the `done` event, then the result. */
export function finish(run: Run, reason: StopReason, answer: string, turns: number, error?: string): AgentResult {
  const { usage, transcript, depth } = run;
  run.emit({ type: 'done', reason, answer, ...(error ? { error } : {}), usage: { ...usage }, turns, depth });
  return { ok: reason === 'end', reason, answer, ...(error ? { error } : {}), turns, transcript, usage };
}
