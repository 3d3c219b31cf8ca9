/**
 * A client process for test/mcp/robust.test.ts: starts `mewcode mcp` over stdio with the official
 * client, calls bash with the command given, and waits — until the test SIGKILLs it mid-call.
 * Usage: node --import tsx kill_client.ts <root> <command>
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [root, command] = process.argv.slice(2) as [string, string];
const repo = path.resolve(import.meta.dirname, '../..');
const client = new Client({ name: 'kill-client', version: '1' });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: ['--import', import.meta.resolve('tsx'), path.join(repo, 'mewcode.ts'), '--root', root, '--allow-run', 'mcp'],
    stderr: 'ignore',
  }),
);
await client.callTool({ name: 'bash', arguments: { command } }, undefined, { timeout: 3_600_000 });
