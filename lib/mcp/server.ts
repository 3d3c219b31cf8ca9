/**
 * `mewcode mcp`: the runtime's tools served to MCP clients, over stdio here and over Streamable HTTP
 * by http_server.ts; both build their protocol server with `mcpServerFor`. Every call goes through
 * the same gate and policy as any other (nothing is ever asked: what would ask is denied, naming the
 * flag). Tools are annotated read-only or destructive, and open-world when they reach outside the
 * project; an error result is an MCP error result with its code in `structuredContent` (messages
 * quote long inputs clipped: lib/core/clip_inputs.ts), as todo_write's plan is (`{todos}`; the
 * server's runtime keeps one plan for its clients). Beside the registry's tools it serves `history`
 * and `rewind` over the undo journal (journal_tools.ts). A client's notifications/cancelled aborts
 * its call as Ctrl-C does; when stdin closes (the client is gone, even SIGKILLed) every call in
 * flight is aborted — their process groups killed — and the server ends. Main thread.
 */
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../core/tool.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { callJournalTool, journalToolList } from './journal_tools.ts';
import { QueuedStdioServerTransport } from './stdio_transport.ts';

/** A call in flight, by its JSON-RPC request id: what stops it and what settles when it is done. */
export interface InflightCall {
  controller: AbortController;
  running: Promise<ToolResult>;
}
export type InflightCalls = Map<string, InflightCall>;

/** A JSON-RPC id as a key of the in-flight calls: `5` and `"5"` are two requests, not one. */
export const requestKey = (id: unknown): string => `${typeof id}:${String(id)}`;

/** One protocol server with the tool handlers; its calls in flight are kept in `inflight`. */
export function mcpServerFor(runtime: Runtime, version: string, inflight: InflightCalls): Server {
  const server = new Server({ name: 'mewcode', version }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      ...runtime.registry.definitions().map((d) => ({
        name: d.name,
        description: d.description,
        inputSchema: d.inputSchema,
        annotations: { readOnlyHint: d.readOnly, destructiveHint: !d.readOnly, openWorldHint: d.openWorld ?? false },
      })),
      // The journal's history and rewind, for the client only (lib/mcp/journal_tools.ts says why).
      ...journalToolList(runtime),
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const journaled = await callJournalTool(runtime, req.params.name, req.params.arguments);
    if (journaled) return journaled;
    // Aborted by the client's notifications/cancelled (the request's signal) or by the client going away.
    const controller = new AbortController();
    const cancel = () => controller.abort(extra.signal.reason);
    if (extra.signal.aborted) cancel();
    else extra.signal.addEventListener('abort', cancel, { once: true });
    const running = runtime.call(req.params.name, req.params.arguments ?? {}, {
      signal: controller.signal,
      via: 'mcp',
    });
    const id = requestKey(extra.requestId);
    inflight.set(id, { controller, running });
    let r: ToolResult;
    try {
      r = await running;
    } finally {
      inflight.delete(id);
      extra.signal.removeEventListener('abort', cancel);
    }
    return {
      content: [
        { type: 'text' as const, text: r.content },
        ...(r.images ?? []).map((i) => ({ type: 'image' as const, data: i.data, mimeType: i.mediaType })),
      ],
      isError: r.isError,
      ...(r.isError ? { structuredContent: { code: r.code ?? 'io', message: r.content } } : {}),
      // todo_write's plan as data, so a client shows it without reading the text.
      ...(!r.isError && r.meta?.todos ? { structuredContent: { todos: r.meta.todos } } : {}),
    };
  });
  return server;
}

/** A background job's end, as MCP's log notification: a client shows it or tells its model. */
export function announceJobs(runtime: Runtime, server: Server): () => void {
  return runtime.jobs.onEnded((j) => {
    void server
      .sendLoggingMessage({
        level: 'info',
        logger: 'mewcode.jobs',
        data: { event: 'job_ended', bash_id: j.id, command: j.command, state: j.state, exit_code: j.exitCode },
      })
      .catch(() => {}); // the client is gone: nothing to tell
  });
}

/** Aborts every call in `inflight` (bash's process groups die) and waits for them to settle. */
export async function abortAll(inflight: InflightCalls, why: string): Promise<void> {
  const calls = [...inflight.values()];
  for (const c of calls) c.controller.abort(new Error(why));
  await Promise.allSettled(calls.map((c) => c.running));
}

export async function serveMcp(
  runtime: Runtime,
  version: string,
  io: { stdin: Readable; stdout: Writable } = { stdin: process.stdin, stdout: process.stdout },
): Promise<void> {
  const inflight: InflightCalls = new Map();
  const server = mcpServerFor(runtime, version, inflight);
  const transport = new QueuedStdioServerTransport(io.stdin, io.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    io.stdin.once('end', () => resolve());
    io.stdin.once('close', () => resolve());
  });
  await server.connect(transport);
  const forgetJobs = announceJobs(runtime, server);
  await closed;
  forgetJobs();
  // Nobody can read an answer any more: stop every call (bash's process group dies) and wait for them.
  await abortAll(inflight, 'the MCP client closed the connection');
  await server.close();
}
