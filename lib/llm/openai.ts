/**
 * OpenAI wire forms of our tools: function tools carrying the whole JSON Schema, and the `strict`
 * form that structured outputs require (every property required, optional ones nullable,
 * `additionalProperties: false`). Keywords strict mode cannot express are moved into the property's
 * description, so the model still learns them and nothing is lost silently. Main thread.
 */
import type { ToolDefinition } from '../core/registry.ts';
import { cutMidStream, notAStream, ProviderError, stalled, streamFailure } from './errors.ts';
import {
  DEFAULT_MAX_RETRIES,
  type Message,
  type ModelTurn,
  type Provider,
  type ProviderOptions,
  type ToolCall,
  type ToolResultMessage,
  type TurnRequest,
  type Usage,
} from './provider.ts';
import { streamIdleMs, watchStream } from './watch.ts';

export interface OpenAITool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown>; strict?: boolean };
}

export function toOpenAITools(defs: readonly ToolDefinition[], options: { strict?: boolean } = {}): OpenAITool[] {
  return defs.map((d) => ({
    type: 'function',
    function: options.strict
      ? { name: d.name, description: d.description, parameters: strictSchema(d.inputSchema), strict: true }
      : { name: d.name, description: d.description, parameters: structuredClone(d.inputSchema) },
  }));
}

/** Keywords strict mode accepts, by JSON type, besides the structural ones. */
const STRUCTURAL = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'anyOf',
  'const',
  '$ref',
  '$defs',
]);
const SUPPORTED: Record<string, ReadonlySet<string>> = {
  string: new Set(['pattern', 'format']),
  number: new Set(['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum']),
  integer: new Set(['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum']),
  array: new Set(['minItems', 'maxItems']),
};

const PHRASES: Record<string, (v: unknown) => string> = {
  default: (v) => `default ${JSON.stringify(v)}`,
  minLength: (v) => `at least ${v} character${v === 1 ? '' : 's'}`,
  maxLength: (v) => `at most ${v} character${v === 1 ? '' : 's'}`,
  minProperties: (v) => `at least ${v} keys`,
  maxProperties: (v) => `at most ${v} keys`,
  uniqueItems: () => 'items unique',
};

/** Keywords dropped without a note: they say nothing about the arguments. */
const IGNORED = new Set(['$schema', '$id', '$comment']);

/** The keywords `strictSchema` would move into a description, as "path: keyword" ("(root)" for the top). */
export function strictInexpressible(schema: unknown, where = ''): string[] {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return [];
  const s = schema as Record<string, unknown>;
  const supported = typeof s.type === 'string' ? SUPPORTED[s.type] : undefined;
  const out: string[] = [];
  for (const key of Object.keys(s))
    if (!STRUCTURAL.has(key) && !supported?.has(key) && !IGNORED.has(key)) out.push(`${where || '(root)'}: ${key}`);
  if (s.properties && typeof s.properties === 'object')
    for (const [k, p] of Object.entries(s.properties)) out.push(...strictInexpressible(p, where ? `${where}.${k}` : k));
  if (s.items) out.push(...strictInexpressible(s.items, `${where}[]`));
  return out;
}

/** The strict-mode form of a JSON Schema object (pure; the input is not changed). */
export function strictSchema(schema: Record<string, unknown>, optional = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const notes: string[] = [];
  const type = schema.type;
  const supported = typeof type === 'string' ? (SUPPORTED[type] ?? new Set<string>()) : new Set<string>();
  for (const [key, value] of Object.entries(schema)) {
    if (STRUCTURAL.has(key) || supported.has(key)) out[key] = structuredClone(value);
    else if (!IGNORED.has(key)) notes.push((PHRASES[key] ?? ((v: unknown) => `${key} ${JSON.stringify(v)}`))(value));
  }
  if (type === 'object' && schema.properties && typeof schema.properties === 'object') {
    const props = schema.properties as Record<string, Record<string, unknown>>;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    out.properties = Object.fromEntries(Object.entries(props).map(([k, p]) => [k, strictSchema(p, !required.has(k))]));
    out.required = Object.keys(props);
    out.additionalProperties = false;
  }
  if (type === 'array' && schema.items && typeof schema.items === 'object') {
    out.items = strictSchema(schema.items as Record<string, unknown>);
  }
  if (notes.length) out.description = `${out.description ? `${out.description} ` : ''}(${notes.join('; ')})`;
  if (optional) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: 'null' }];
  }
  return out;
}

/**
 * Arguments from a strict-mode call back into our schema's shape: a `null` for a key the original
 * schema does not require means "not given".
 */
export function fromStrictArgs(schema: { required?: string[] }, args: unknown): unknown {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  const required = new Set(schema.required ?? []);
  return Object.fromEntries(Object.entries(args).filter(([k, v]) => !(v === null && !required.has(k))));
}

/** The marker an error result carries in an OpenAI tool message, which has no error flag. */
const OPENAI_ERROR_PREFIX = 'ERROR: ';

/** The OpenAI Chat Completions provider (any compatible base URL); the SDK is imported on first use. */
export function openaiProvider(o: ProviderOptions & { strict?: boolean }): Provider {
  let client: import('openai').default | undefined;
  const url = `${(o.baseURL ?? 'https://api.openai.com/v1').replace(/\/+$/, '')}/chat/completions`;
  return {
    name: 'openai',
    url,
    maxRetries: o.maxRetries ?? DEFAULT_MAX_RETRIES,
    async turn(req: TurnRequest): Promise<ModelTurn> {
      if (!client) {
        const { default: OpenAI } = await import('openai');
        // Our own retries (lib/llm/retry.ts) are visible and back off with jitter; the SDK's are off.
        client = new OpenAI({ apiKey: o.apiKey, ...(o.baseURL ? { baseURL: o.baseURL } : {}), maxRetries: 0 });
      }
      const tools = toOpenAITools(req.tools, { strict: o.strict ?? false });
      const idleMs = o.idleMs ?? streamIdleMs();
      const watch = watchStream(req.signal, idleMs);
      const state = { text: '', stopReason: '', usage: undefined as Usage | undefined };
      const partial = new Map<number, { id: string; name: string; args: string }>();
      let responded = false;
      try {
        const { data: stream, response } = await client.chat.completions
          .create(
            {
              model: req.model,
              max_tokens: req.maxTokens,
              stream: true,
              stream_options: { include_usage: true },
              messages: toOpenAIMessages(req.system, req.messages) as never,
              ...(tools.length ? { tools: tools as never } : {}),
            },
            { signal: watch.signal },
          )
          .withResponse();
        watch.touch(false);
        responded = true;
        const type = response.headers.get('content-type');
        // A login page or a proxy's error page answered 200: say so, not a silent empty answer.
        if (!type?.includes('event-stream')) throw notAStream('openai', url, type, await response.text());
        for await (const chunk of stream) {
          watch.touch();
          if (chunk.usage) state.usage = { input: chunk.usage.prompt_tokens, output: chunk.usage.completion_tokens };
          const choice = chunk.choices?.[0];
          if (!choice) continue;
          const d = choice.delta;
          if (d?.content) {
            state.text += d.content;
            req.onText?.(d.content);
          }
          for (const tc of d?.tool_calls ?? []) {
            const p = partial.get(tc.index) ?? { id: '', name: '', args: '' };
            if (tc.id) p.id = tc.id;
            if (tc.function?.name) p.name += tc.function.name;
            if (tc.function?.arguments) p.args += tc.function.arguments;
            partial.set(tc.index, p);
          }
          if (choice.finish_reason) state.stopReason = choice.finish_reason;
        }
        // The SDK ends the iteration quietly when the request is aborted: say which abort it was.
        if (req.signal.aborted)
          throw new ProviderError('openai: the request was cancelled.', 'cancelled', false, 'cancelled');
        if (watch.stalled) throw stalled('openai', url, idleMs, watch.events);
      } catch (e) {
        throw streamFailure('openai', url, e, { signal: req.signal, watch, idleMs, answered: responded });
      } finally {
        watch.dispose();
      }
      // A stream that ended without a finish reason was cut short by the server.
      if (!state.stopReason)
        throw cutMidStream('openai', url, watch.events, new Error('the stream ended without a finish reason'));
      const calls: ToolCall[] = [...partial.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, p]) => {
          try {
            const input = p.args.trim() === '' ? {} : JSON.parse(p.args);
            return {
              id: p.id,
              name: p.name,
              input: o.strict
                ? fromStrictArgs(req.tools.find((t) => t.name === p.name)?.inputSchema ?? {}, input)
                : input,
            };
          } catch {
            return { id: p.id, name: p.name, input: p.args, badJson: p.args };
          }
        });
      return {
        text: state.text,
        calls,
        stopReason: state.stopReason,
        truncated: state.stopReason === 'length',
        ...(state.usage ? { usage: state.usage } : {}),
      };
    },
  };
}

function toOpenAIMessages(system: string, messages: readonly Message[]): unknown[] {
  const out: unknown[] = [{ role: 'system', content: system }];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content });
    else if (m.role === 'assistant') {
      out.push({
        role: 'assistant',
        content: m.text || null,
        ...(m.calls.length
          ? {
              tool_calls: m.calls.map((c) => ({
                id: c.id,
                type: 'function',
                function: { name: c.name, arguments: c.badJson ?? JSON.stringify(c.input) },
              })),
            }
          : {}),
      });
    } else {
      for (const r of m.results)
        out.push({
          role: 'tool',
          tool_call_id: r.id,
          content: r.isError ? `${OPENAI_ERROR_PREFIX}${r.content}` : r.content,
        });
      const shown = imagesMessage(m.results);
      if (shown) out.push(shown);
    }
  }
  return out;
}

/**
 * OpenAI's tool messages carry text only: the images the results show go in a user message right
 * after them, each named by the call it came from.
 */
function imagesMessage(results: readonly ToolResultMessage[]): unknown {
  const parts: unknown[] = [];
  for (const r of results)
    for (const [n, i] of (r.images ?? []).entries()) {
      parts.push({ type: 'text', text: `Image ${n + 1} of the ${r.name} result ${r.id} (${i.width}×${i.height}):` });
      parts.push({ type: 'image_url', image_url: { url: `data:${i.mediaType};base64,${i.data}` } });
    }
  return parts.length > 0 ? { role: 'user', content: parts } : undefined;
}
