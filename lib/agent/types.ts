/**
 * The agent loop's public shapes: its options, the events it emits while it runs, and its result.
 */

import type { TodoItem } from '../core/todos.ts';
import type { ToolResult } from '../core/tool.ts';
import type { Message, Provider, Usage } from '../llm/provider.ts';
import type { ProviderName } from '../llm/providers.ts';
import type { RetryNotice } from '../llm/retry.ts';
import type { Runtime } from '../runtime/runtime.ts';
import type { SubAgentFilter } from './filter.ts';
import type { ToolSearchOptions } from './tool_search.ts';

export type StopReason = 'end' | 'max_turns' | 'unknown_tools' | 'cancelled' | 'error' | 'truncated' | 'empty';

export type AgentEvent =
  | { type: 'turn'; turn: number; depth: number }
  | { type: 'text'; delta: string; depth: number }
  | { type: 'tool_start'; id: string; name: string; input: unknown; seq: number; depth: number }
  | { type: 'tool_end'; id: string; name: string; result: ToolResult; seq: number; depth: number }
  | { type: 'retry'; notice: RetryNotice; depth: number }
  | { type: 'usage'; turn: number; usage: Usage; total: Usage; depth: number }
  /** Something the user should know that is not an error: a cut turn, context trimmed or compacted. */
  | { type: 'notice'; message: string; depth: number }
  /** A background job started (`running`) or ended (its state: `exited 0`, `stopped by kill_bash`…). */
  | { type: 'job'; id: string; command: string; state: string; depth: number }
  /** The run's plan changed (a todo_write call succeeded): every item, as it now stands. */
  | { type: 'todo'; todos: readonly TodoItem[]; depth: number }
  | { type: 'done'; reason: StopReason; answer: string; error?: string; usage: Usage; turns: number; depth: number };

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
  /** Input + output tokens no request may exceed (default: MEWCODE_CONTEXT_TOKENS, else the model's window). */
  contextTokens?: number;
  /**
   * When MCP tools are deferred behind tool_search (default: past 10% of the context budget or 100
   * tools); false never defers them.
   */
  toolSearch?: false | ToolSearchOptions;
}

export interface AgentResult {
  ok: boolean;
  reason: StopReason;
  answer: string;
  error?: string;
  turns: number;
  transcript: Message[];
  /** Tokens the provider reported, summed over the run's requests. */
  usage: Usage;
}
