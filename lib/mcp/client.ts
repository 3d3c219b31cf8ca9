/**
 * External MCP servers from the settings files (`mcpServers`): each is started over stdio and its
 * tools join the registry as `mcp__<server>__<tool>`, read-only when the server says `readOnlyHint`.
 * Their schemas are checked: keywords OpenAI's strict mode cannot express are reported. A server that
 * fails to start is reported, not fatal. Main thread.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as v from 'valibot';
import { type AnyTool, defineTool, fail, type JsonSchemaObject, type ParamsSchema } from '../core/tool.ts';
import { strictInexpressible } from '../llm/openai.ts';
import type { Runtime } from '../runtime.ts';

export interface McpServerConfig {
  command: string;
  args?: string[];
  env?: Record<string, string>;
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
    const readOnly = t.annotations?.readOnlyHint === true;
    for (const w of strictInexpressible(t.inputSchema))
      warnings.push(`${full}: ${w} is not expressible in OpenAI strict mode (moved into the description)`);
    const { $schema: _s, ...declared } = t.inputSchema as JsonSchemaObject & { $schema?: string };
    const inputSchema = { ...declared, type: 'object' as const, properties: declared.properties ?? {} };
    const tool = remoteTool(client, t.name, full, t.description ?? `${t.name} from the MCP server ${name}`, {
      readOnly,
      inputSchema,
    });
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

/**
 * Any object of arguments, every key kept: the remote server checks them against the schema it
 * declared. A loose object is not among defineTool's ParamsSchema types, though it parses like one.
 */
const ANY_OBJECT = v.looseObject({}) as unknown as ParamsSchema;

/** One of a server's tools, built like every tool so its result gets the output budget. */
function remoteTool(
  client: Client,
  remoteName: string,
  full: string,
  description: string,
  o: { readOnly: boolean; inputSchema: JsonSchemaObject },
): AnyTool {
  const base = defineTool({
    // defineTool takes only snake_case names, and an MCP name may hold capitals and '-'; the real
    // name is put back below, and this one appears in no message the tool can produce.
    name: full.toLowerCase().replaceAll('-', '_'),
    description,
    readOnly: o.readOnly,
    system: false,
    mainThread: true, // the connection to its server lives here
    params: ANY_OBJECT,
    // The policy sees a run of the MCP tool: unknown effects ask unless a rule or flag allows them.
    access: () => (o.readOnly ? [] : [{ kind: 'run', command: full }]),
    async run(args) {
      try {
        const r = await client.callTool({ name: remoteName, arguments: args as Record<string, unknown> });
        const text = ((r.content ?? []) as { type: string; text?: string }[])
          .map((p) => (p.type === 'text' ? (p.text ?? '') : `[${p.type}]`))
          .join('\n');
        return r.isError ? fail('io', text || `${full} failed`) : { content: text, isError: false };
      } catch (e) {
        return fail('io', `${full} failed: ${(e as Error).message}`);
      }
    },
  });
  return {
    ...base,
    name: full,
    // What the server declared, not the catch-all above: the providers see it, and OpenAI strict
    // arguments are decoded with it.
    inputSchema: o.inputSchema,
    // The catch-all's invalid_args message would list no parameters, and valibot takes an array for
    // an object; say what is wrong instead.
    parse: (input) => {
      const r = Array.isArray(input) ? undefined : base.parse(input);
      return r?.ok ? r : { ok: false, error: fail('invalid_args', `${full} takes an object of arguments.`) };
    },
  };
}
