/**
 * A client process for test/mcp/http*.slow.test.ts: connects the official SDK's Streamable HTTP
 * client to a `mewcode mcp --http` server, calls one tool and prints the result's text — or is
 * SIGKILLed mid-call by the test. Usage: node --import tsx http_call_client.ts <url> <token file> <tool> <json>
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, tokenFile, tool, json] = process.argv.slice(2) as [string, string, string, string];
const token = readFileSync(tokenFile, 'utf8').trim();
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: 'test-child', version: '1' });
await client.connect(transport);
const r = await client.callTool({ name: tool, arguments: JSON.parse(json) }, undefined, { timeout: 3_600_000 });
const first = (r.content as { text?: string }[])[0];
process.stdout.write(first?.text ?? '');
await client.close();
