/**
 * `mewcode mcp`: the runtime's tools served over stdio to MCP clients. Every call goes through the
 * same gate and policy as any other (stdin carries the protocol, so nothing is ever asked: what would
 * ask is denied, naming the flag). Tools are annotated read-only or destructive; an error result is
 * an MCP error result with its code in `structuredContent`. Main thread.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Runtime } from '../runtime.ts';

export async function serveMcp(runtime: Runtime, version: string): Promise<void> {
  const server = new Server({ name: 'mewcode', version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: runtime.registry.definitions().map((d) => ({
      name: d.name,
      description: d.description,
      inputSchema: d.inputSchema,
      annotations: { readOnlyHint: d.readOnly, destructiveHint: !d.readOnly, openWorldHint: d.name === 'bash' },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    // The request's signal is aborted by the client's notifications/cancelled: the call stops as on Ctrl-C.
    const r = await runtime.call(req.params.name, req.params.arguments ?? {}, { signal: extra.signal });
    return {
      content: [{ type: 'text' as const, text: r.content }],
      isError: r.isError,
      ...(r.isError ? { structuredContent: { code: r.code ?? 'io', message: r.content } } : {}),
    };
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
