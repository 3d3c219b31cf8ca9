/**
 * Anthropic wire forms of our tools. The whole JSON Schema goes into `input_schema`: no keyword is
 * dropped (the seed kept only properties/required). Main thread; the SDK itself is imported lazily by
 * the code that calls the model, never here.
 */
import type { ToolDefinition } from '../core/registry.ts';
import { streamFailure } from './errors.ts';
import {
  DEFAULT_MAX_RETRIES,
  type Message,
  type ModelTurn,
  type Provider,
  type ProviderOptions,
  type ToolCall,
  type TurnRequest,
} from './provider.ts';
import { streamIdleMs, watchStream } from './watch.ts';

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: { type: 'object'; [key: string]: unknown };
}

export function toAnthropicTools(defs: readonly ToolDefinition[]): AnthropicTool[] {
  return defs.map((d) => ({ name: d.name, description: d.description, input_schema: structuredClone(d.inputSchema) }));
}

/** The Anthropic Messages provider; the SDK is imported on first use. */
export function anthropicProvider(o: ProviderOptions): Provider {
  let client: import('@anthropic-ai/sdk').default | undefined;
  const url = `${(o.baseURL ?? 'https://api.anthropic.com').replace(/\/+$/, '')}/v1/messages`;
  return {
    name: 'anthropic',
    url,
    maxRetries: o.maxRetries ?? DEFAULT_MAX_RETRIES,
    async turn(req: TurnRequest): Promise<ModelTurn> {
      if (!client) {
        const { default: Anthropic } = await import('@anthropic-ai/sdk');
        // Our own retries (lib/llm/retry.ts) are visible and back off with jitter; the SDK's are off.
        client = new Anthropic({ apiKey: o.apiKey, ...(o.baseURL ? { baseURL: o.baseURL } : {}), maxRetries: 0 });
      }
      const tools = toAnthropicTools(req.tools);
      // Prompt caching: the system prompt and the tool list are the stable prefix of every request.
      const last = tools.at(-1);
      if (last) (last as AnthropicTool & { cache_control?: unknown }).cache_control = { type: 'ephemeral' };
      const idleMs = o.idleMs ?? streamIdleMs();
      const watch = watchStream(req.signal, idleMs);
      let contentType: string | null = null;
      try {
        const stream = client.messages.stream(
          {
            model: req.model,
            max_tokens: req.maxTokens,
            system: [{ type: 'text', text: req.system, cache_control: { type: 'ephemeral' } }],
            ...(tools.length ? { tools: tools as never } : {}),
            messages: toAnthropicMessages(req.messages) as never,
          },
          { signal: watch.signal },
        );
        stream
          .withResponse()
          .then(({ response }) => {
            contentType = response.headers.get('content-type');
          })
          .catch(() => {});
        stream.on('streamEvent', () => watch.touch());
        if (req.onText) stream.on('text', (d: string) => req.onText?.(d));
        const msg = await stream.finalMessage();
        let text = '';
        const calls: ToolCall[] = [];
        for (const b of msg.content) {
          if (b.type === 'text') text += b.text;
          else if (b.type === 'tool_use') calls.push({ id: b.id, name: b.name, input: b.input });
        }
        const u = msg.usage;
        return {
          text,
          calls,
          stopReason: msg.stop_reason ?? 'end_turn',
          truncated: msg.stop_reason === 'max_tokens',
          usage: {
            input: u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0),
            output: u.output_tokens,
          },
        };
      } catch (e) {
        const answered = contentType !== null;
        throw streamFailure('anthropic', url, e, { signal: req.signal, watch, idleMs, answered, contentType });
      } finally {
        watch.dispose();
      }
    },
  };
}

function toAnthropicMessages(messages: readonly Message[]): unknown[] {
  return messages.map((m) => {
    if (m.role === 'user') return { role: 'user', content: m.content };
    if (m.role === 'assistant') {
      const content: unknown[] = [];
      if (m.text) content.push({ type: 'text', text: m.text });
      for (const c of m.calls)
        content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.badJson !== undefined ? {} : c.input });
      return { role: 'assistant', content };
    }
    return {
      role: 'user',
      content: m.results.map((r) => ({
        type: 'tool_result',
        tool_use_id: r.id,
        content: r.images?.length
          ? [
              { type: 'text', text: r.content },
              ...r.images.map((i) => ({
                type: 'image',
                source: { type: 'base64', media_type: i.mediaType, data: i.data },
              })),
            ]
          : r.content,
        is_error: r.isError,
      })),
    };
  });
}
