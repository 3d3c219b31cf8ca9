/**
 * A fake model server on 127.0.0.1, scripted, that speaks both wire protocols: Anthropic Messages at
 * /v1/messages and OpenAI Chat Completions at /v1/chat/completions, streamed (SSE) or, for a request
 * that does not ask for a stream, as one JSON answer. Each request takes the next turn of the script;
 * the official SDKs talk to it unchanged. Closed when the test (or test file) ends.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import type { Provider } from '../../lib/llm/provider.ts';
import { makeProvider } from '../../lib/llm/providers.ts';

export interface ScriptTurn {
  text?: string;
  /** `id` overrides the call's id on the wire ('' for an empty one); `raw` is sent instead of the JSON of `input`. */
  calls?: { name: string; input: unknown; id?: string; raw?: string }[];
  /** The turn stops on the output limit (Anthropic `max_tokens`, OpenAI `length`). */
  outputLimit?: boolean;
  /** Send the stream's headers, then nothing, ever. */
  stall?: boolean;
  /** Reset the connection before answering anything. */
  reset?: boolean;
  /** Answer 200 with an HTML page. */
  html?: boolean;
  /** Answer with this HTTP status and error body instead. */
  status?: number;
  /** The Retry-After header of a `status` answer (seconds; default 7). */
  retryAfter?: string | null;
  /** Send part of the stream, then drop the connection. */
  cut?: boolean;
  /** Wait this long before answering (for cancellation). */
  delayMs?: number;
}

export interface FakeModel {
  url: string;
  /** The CLI's flags that point an agent run at this server over the OpenAI wire. */
  openaiFlags: string[];
  requests: { path: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

/** `summary`: the answer to a compaction request (one asking to summarize), which takes no turn of the script. */
export async function startModel(script: ScriptTurn[], o: { summary?: string } = {}): Promise<FakeModel> {
  const requests: FakeModel['requests'] = [];
  let next = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let data = '';
    req.on('data', (c) => {
      data += c;
    });
    req.on('end', async () => {
      const body = JSON.parse(data || '{}') as Record<string, unknown>;
      requests.push({ path: req.url ?? '', body });
      const compaction =
        o.summary !== undefined && JSON.stringify(body.messages).includes('Summarize the conversation above');
      const turn = compaction ? { text: o.summary } : (script[next++] ?? { text: 'done' });
      if (turn.delayMs) await new Promise((r) => setTimeout(r, turn.delayMs));
      if (turn.status) {
        const after = turn.retryAfter === undefined ? '7' : turn.retryAfter;
        res.writeHead(turn.status, {
          'content-type': 'application/json',
          ...(after !== null ? { 'retry-after': after } : {}),
        });
        res.end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }));
        return;
      }
      if (turn.reset) {
        req.socket.resetAndDestroy();
        return;
      }
      if (turn.html) {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body><h1>Please sign in</h1></body></html>');
        return;
      }
      if (body.stream !== true) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(req.url?.endsWith('/messages') ? anthropicJson(turn, next) : openaiJson(turn, next)));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (turn.stall) {
        res.flushHeaders();
        return;
      }
      const send = (event: string | undefined, payload: unknown) =>
        res.write(
          `${event ? `event: ${event}\n` : ''}data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`,
        );
      if (req.url?.endsWith('/messages')) anthropic(turn, send, res, next);
      else
        openai(
          turn,
          send,
          res,
          next,
          Boolean((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage),
        );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closed: Promise<void> | undefined;
  // The SDKs' keep-alive sockets would hold the server (and the test file) open for seconds.
  const close = () =>
    (closed ??= new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }));
  after(close);
  return { url, openaiFlags: ['--provider', 'openai', '--base-url', `${url}/v1`], requests, close };
}

/** The URL of a port on 127.0.0.1 that nothing listens on: bound, then closed. */
export async function refusingUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise((r) => probe.close(r));
  return url;
}

const stopReason = (t: ScriptTurn, anthropic: boolean) =>
  anthropic
    ? t.outputLimit
      ? 'max_tokens'
      : t.calls?.length
        ? 'tool_use'
        : 'end_turn'
    : t.outputLimit
      ? 'length'
      : t.calls?.length
        ? 'tool_calls'
        : 'stop';

/** A whole Anthropic message, for a request without `stream: true`. */
function anthropicJson(t: ScriptTurn, n: number) {
  const calls = (t.calls ?? []).map((c, k) => ({
    type: 'tool_use',
    id: c.id ?? `toolu_${n}_${k}`,
    name: c.name,
    input: c.input,
  }));
  return {
    id: `msg_${n}`,
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [...(t.text ? [{ type: 'text', text: t.text }] : []), ...calls],
    stop_reason: stopReason(t, true),
    stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 9 },
  };
}

/** A whole OpenAI chat completion, for a request without `stream: true`. */
function openaiJson(t: ScriptTurn, n: number) {
  const calls = (t.calls ?? []).map((c, k) => ({
    id: c.id ?? `call_${n}_${k}`,
    type: 'function',
    function: { name: c.name, arguments: c.raw ?? JSON.stringify(c.input) },
  }));
  const message = {
    role: 'assistant',
    content: t.text ?? null,
    refusal: null,
    ...(calls.length ? { tool_calls: calls } : {}),
  };
  return {
    id: `c${n}`,
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, message, finish_reason: stopReason(t, false), logprobs: null }],
    usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 },
  };
}

type Send = (event: string | undefined, payload: unknown) => void;

function anthropic(t: ScriptTurn, send: Send, res: ServerResponse, n: number) {
  send('message_start', {
    type: 'message_start',
    message: {
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 1 },
    },
  });
  let index = 0;
  if (t.text) {
    send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const piece of chunks(t.text))
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    if (t.cut) {
      // A clean close (FIN) after the data, so the client reads what was sent, then sees the end.
      res.socket?.end();
      return;
    }
    send('content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  for (const [k, c] of (t.calls ?? []).entries()) {
    send('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: c.id ?? `toolu_${n}_${k}`, name: c.name, input: {} },
    });
    for (const piece of chunks(c.raw ?? JSON.stringify(c.input)))
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: piece },
      });
    send('content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  send('message_delta', {
    type: 'message_delta',
    delta: {
      stop_reason: stopReason(t, true),
      stop_sequence: null,
    },
    usage: { output_tokens: 9 },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

function openai(t: ScriptTurn, send: Send, res: ServerResponse, n: number, usage: boolean) {
  const chunk = (delta: unknown, finish: string | null = null) =>
    send(undefined, {
      id: `c${n}`,
      object: 'chat.completion.chunk',
      created: 0,
      model: 'm',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  chunk({ role: 'assistant', content: '' });
  for (const piece of chunks(t.text ?? '')) chunk({ content: piece });
  if (t.cut) {
    res.socket?.end();
    return;
  }
  for (const [k, c] of (t.calls ?? []).entries()) {
    const args = c.raw ?? JSON.stringify(c.input);
    const [first, ...rest] = chunks(args);
    chunk({
      tool_calls: [
        {
          index: k,
          id: c.id ?? `call_${n}_${k}`,
          type: 'function',
          function: { name: c.name, arguments: first ?? '' },
        },
      ],
    });
    for (const piece of rest) chunk({ tool_calls: [{ index: k, function: { arguments: piece } }] });
  }
  chunk({}, stopReason(t, false));
  if (usage)
    send(undefined, {
      id: `c${n}`,
      object: 'chat.completion.chunk',
      created: 0,
      model: 'm',
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 },
    });
  send(undefined, '[DONE]');
  res.end();
}

/** Splits text into a few pieces, so clients really assemble streamed deltas. */
function chunks(s: string): string[] {
  if (s.length < 8) return s ? [s] : [];
  const k = Math.ceil(s.length / 3);
  return [s.slice(0, k), s.slice(k, 2 * k), s.slice(2 * k)];
}

/** An official SDK's provider pointed at a scripted model: Anthropic's at its root, OpenAI's at /v1. */
export function providerFor(provider: 'anthropic' | 'openai', model: FakeModel): Provider {
  const made = makeProvider({
    provider,
    apiKey: 'test-key',
    baseURL: provider === 'openai' ? `${model.url}/v1` : model.url,
    maxRetries: 0,
  });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}
