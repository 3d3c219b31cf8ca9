/**
 * External MCP servers from the settings files (`mcpServers`): each is started over stdio and its
 * tools join the registry as `mcp__<server>__<tool>`, read-only when the server says `readOnlyHint`.
 * Their schemas are checked: keywords OpenAI's strict mode cannot express are reported. A server that
 * fails to start is reported, not fatal. Main thread.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { AnyTool, JsonSchemaObject, ToolResult } from '../core/tool.ts';
import { fail } from '../core/tool.ts';
import { strictInexpressible } from '../llm/openai.ts';
import type { Runtime } from '../runtime.ts';

export interface McpServerConfig {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  /** The user marked this server read-only in their settings: only then are its readOnlyHint annotations believed. */
  trustReadOnlyHints?: boolean;
}

export interface McpConnection {
  server: string;
  tools: string[];
  /** Schema keywords a provider cannot express, per tool. */
  warnings: string[];
  close(): Promise<void>;
}

const NAME = /^[A-Za-z0-9_-]+$/;

export async function connectMcpServer(runtime: Runtime, name: string, c: McpServerConfig): Promise<McpConnection> {
  if (!NAME.test(name)) throw new Error(`MCP server name ${JSON.stringify(name)} must be letters, digits, _ or -`);
  const transport = new StdioClientTransport({
    command: c.command,
    args: c.args ?? [],
    ...(c.env ? { env: c.env } : {}),
    stderr: 'ignore',
  });
  const client = new Client({ name: 'mewcode', version: '1' });
  await client.connect(transport);
  const listed = await client.listTools();
  const tools: string[] = [];
  const warnings: string[] = [];
  for (const t of listed.tools) {
    if (!NAME.test(t.name)) {
      warnings.push(`${name}/${t.name}: skipped, the name is not letters, digits, _ or -`);
      continue;
    }
    const full = `mcp__${name}__${t.name}`;
    const readOnly = c.trustReadOnlyHints === true && t.annotations?.readOnlyHint === true;
    for (const w of strictInexpressible(t.inputSchema))
      warnings.push(`${full}: ${w} is not expressible in OpenAI strict mode (moved into the description)`);
    const { $schema: _s, ...inputSchema } = t.inputSchema as JsonSchemaObject & { $schema?: string };
    const tool: AnyTool = {
      name: full,
      description: t.description ?? `${t.name} from the MCP server ${name}`,
      readOnly,
      system: false,
      // The connection to its server lives on the main thread; one that may change things queues with the writes.
      lane: readOnly ? 'main' : 'write',
      params: undefined as never,
      inputSchema: { ...inputSchema, type: 'object', properties: inputSchema.properties ?? {} },
      // The policy sees a run of the MCP tool: unknown effects ask unless a rule or flag allows them.
      access: () => (readOnly ? [] : [{ kind: 'run', command: full }]),
      run: async () => fail('internal', 'not used'),
      parse: (input) =>
        input !== null && typeof input === 'object' && !Array.isArray(input)
          ? { ok: true, value: input }
          : { ok: false, error: fail('invalid_args', `${full} takes an object of arguments.`) },
      async invoke(args): Promise<ToolResult> {
        try {
          const r = await client.callTool({ name: t.name, arguments: args as Record<string, unknown> });
          const text = ((r.content ?? []) as { type: string; text?: string }[])
            .map((p) => (p.type === 'text' ? (p.text ?? '') : `[${p.type}]`))
            .join('\n');
          return r.isError ? fail('io', text || `${full} failed`) : { content: text, isError: false };
        } catch (e) {
          return fail('io', `${full} failed: ${(e as Error).message}`);
        }
      },
    };
    if (runtime.registry.get(full)) runtime.registry.register(tool, { replace: true });
    else runtime.registry.register(tool);
    tools.push(full);
  }
  return {
    server: name,
    tools,
    warnings,
    async close() {
      for (const t of tools) runtime.registry.unregister(t);
      await client.close();
    },
  };
}
