/**
 * External MCP servers from the settings files (`mcpServers`): each is started over stdio (`command`)
 * or reached over Streamable HTTP (`url`, `headers`), and its tools join the registry as
 * `mcp__<server>__<tool>`, read-only when the server says `readOnlyHint`.
 * Their schemas are checked: keywords OpenAI's strict mode cannot express are reported. A server that
 * fails to start is reported, not fatal. Main thread.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import * as v from 'valibot';
import { errValue } from '../core/result.ts';
import { type AnyTool, defineTool, fail, type JsonSchemaObject, ok } from '../core/tool.ts';
import { strictInexpressible } from '../llm/openai.ts';
import type { McpServerConfig } from '../policy/rules.ts';
import type { Runtime } from '../runtime/runtime.ts';

export type { McpServerConfig } from '../policy/rules.ts';

interface McpConnection {
  server: string;
  tools: string[];
  /** Schema keywords a provider cannot express, per tool. */
  warnings: string[];
  close(): Promise<void>;
}

const NAME = /^[A-Za-z0-9_-]+$/;

export async function connectMcpServer(runtime: Runtime, name: string, c: McpServerConfig): Promise<McpConnection> {
  if (!NAME.test(name)) throw new Error(`MCP server name ${JSON.stringify(name)} must be letters, digits, _ or -`);
  const transport = transportOf(name, c);
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

function transportOf(name: string, c: McpServerConfig): Transport {
  if (c.url !== undefined) {
    const headers = Object.fromEntries(Object.entries(c.headers ?? {}).map(([k, v]) => [k, withEnv(name, k, v)]));
    return new StreamableHTTPClientTransport(new URL(c.url), { requestInit: { headers } });
  }
  return new StdioClientTransport({
    command: c.command ?? '',
    args: c.args ?? [],
    ...(c.env ? { env: c.env } : {}),
    stderr: 'ignore',
  });
}

/** `${NAME}` in a header's value is the environment variable NAME, so a token need not sit in the file. */
function withEnv(server: string, header: string, value: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, n: string) => {
    const found = process.env[n];
    if (found === undefined)
      throw new Error(`MCP server ${server}: header ${header} names \${${n}}, which is not set in the environment`);
    return found;
  });
}

/** Any object of arguments, every key kept: the remote server checks them against the schema it declared. */
const ANY_OBJECT = v.looseObject({});

/** One of a server's tools, built like every tool so its result gets the output budget. */
function remoteTool(
  client: Client,
  remoteName: string,
  full: string,
  description: string,
  o: { readOnly: boolean; inputSchema: JsonSchemaObject },
): AnyTool {
  const tool = defineTool({
    name: full,
    description,
    // The connection to its server lives on the main thread; a tool that may change things queues
    // with the writes.
    lane: o.readOnly ? 'main' : 'write',
    system: false,
    params: ANY_OBJECT,
    // What the server declared: the providers see it, and OpenAI strict arguments are decoded with it.
    inputSchema: o.inputSchema,
    // The policy sees a run of the MCP tool: unknown effects ask unless a rule or flag allows them.
    access: () => (o.readOnly ? [] : [{ kind: 'run', command: full }]),
    async run(args) {
      try {
        const r = await client.callTool({ name: remoteName, arguments: args as Record<string, unknown> });
        const text = ((r.content ?? []) as { type: string; text?: string }[])
          .map((p) => (p.type === 'text' ? (p.text ?? '') : `[${p.type}]`))
          .join('\n');
        return r.isError ? fail('io', text || `${full} failed`) : ok(text);
      } catch (e) {
        return fail('io', `${full} failed: ${(e as Error).message}`);
      }
    },
  });
  return {
    ...tool,
    // valibot takes an array for an object; the server would not.
    parse: (input) =>
      Array.isArray(input)
        ? errValue(fail('invalid_args', `${full} takes an object of arguments.`))
        : tool.parse(input),
  };
}
