/**
 * The provider-neutral shape of a conversation and of one model turn. lib/llm/anthropic.ts and
 * openai.ts translate it to and from each wire protocol; the agent loop speaks only this. Main thread.
 */
import type { ToolDefinition } from '../core/registry.ts';
import type { ToolImage } from '../core/tool_result.ts';
import { toProviderError } from './errors.ts';

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed arguments, or the raw text when the model sent JSON that does not parse. */
  input: unknown;
  /** Set when the arguments were not valid JSON. */
  badJson?: string;
}

export interface ToolResultMessage {
  id: string;
  name: string;
  content: string;
  isError: boolean;
  /** Images the result shows: Anthropic's tool_result carries them; OpenAI's next user message does. */
  images?: ToolImage[];
}

export type Message =
  | { role: 'user'; content: string }
  | { role: 'assistant'; text: string; calls: ToolCall[] }
  | { role: 'tool_results'; results: ToolResultMessage[] };

export interface TurnRequest {
  model: string;
  system: string;
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
  maxTokens: number;
  signal: AbortSignal;
  /** Streamed text as it arrives. */
  onText?: (delta: string) => void;
}

export interface Usage {
  input: number;
  output: number;
}

export interface ModelTurn {
  text: string;
  calls: ToolCall[];
  /** The wire's own word (end_turn, tool_use, max_tokens, stop, tool_calls, length). */
  stopReason: string;
  /** The turn stopped on the output limit (`max_tokens`, `length`): its text and calls are cut. */
  truncated: boolean;
  usage?: Usage;
}

export interface Provider {
  readonly name: 'anthropic' | 'openai';
  /** The endpoint requests go to, named in every error. */
  readonly url: string;
  /** Retries of transient failures (lib/llm/retry.ts): default 4, so 5 attempts. */
  readonly maxRetries: number;
  /** One request, no retries: a failure is a ProviderError (lib/llm/errors.ts). */
  turn(req: TurnRequest): Promise<ModelTurn>;
}

export interface ProviderOptions {
  apiKey: string;
  baseURL?: string;
  /** Our retries of transient failures (default 4); the SDK's own retries are off, so each is visible. */
  maxRetries?: number;
  /** The stream idle limit (default MEWCODE_STREAM_IDLE_MS, else 120 s). */
  idleMs?: number;
}

export const DEFAULT_MAX_RETRIES = 4;

/** A provider failure worded for the user: what happened, at which URL, and what to do. */
export function describeProviderError(provider: Provider, e: unknown): string {
  return toProviderError(provider.name, provider.url, e).message;
}
