/**
 * The provider-neutral shape of a conversation and of one model turn. lib/llm/anthropic.ts and
 * openai.ts translate it to and from each wire protocol; the agent loop speaks only this. Main thread.
 */
import type { ToolDefinition } from '../core/registry.ts';

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

export interface ModelTurn {
  text: string;
  calls: ToolCall[];
  stopReason: string;
  usage?: { input: number; output: number };
}

export interface Provider {
  readonly name: 'anthropic' | 'openai';
  turn(req: TurnRequest): Promise<ModelTurn>;
}

export interface ProviderOptions {
  apiKey: string;
  baseURL?: string;
  /** SDK retries of failed requests (default 2). */
  maxRetries?: number;
}

/** A provider failure worded for the user: what happened and what to do. */
export function describeProviderError(provider: string, e: unknown): string {
  const err = e as { status?: number; headers?: Headers | Record<string, string>; message?: string; name?: string };
  const status = err?.status;
  if (status === 401) return `${provider}: authentication failed (401): check the API key.`;
  if (status === 403) return `${provider}: permission denied (403): the key cannot use this model.`;
  if (status === 404) return `${provider}: not found (404): check the model name and the base URL.`;
  if (status === 429) {
    const h = err.headers;
    const retry = h
      ? typeof (h as Headers).get === 'function'
        ? (h as Headers).get('retry-after')
        : (h as Record<string, string>)['retry-after']
      : undefined;
    return `${provider}: rate limited (429)${retry ? `; retry after ${retry} s` : ''}. Wait, or lower the request rate.`;
  }
  if (status && status >= 500) return `${provider}: the service failed (${status}): ${err.message ?? ''}`.trim();
  if (err?.name === 'AbortError' || err?.name === 'APIUserAbortError') return `${provider}: the request was cancelled.`;
  return `${provider}: ${err?.message ?? String(e)}`;
}
