/**
 * A client process for test/mcp/robust.slow.test.ts: starts `mewcode mcp` over stdio with the official
 * client, calls bash with the command given, and waits — until the test SIGKILLs it mid-call.
 * Usage: node --import tsx kill_client.ts <root> <command>
 */
import { connectMcp } from '../helpers/mcp_client.ts';

const [root, command] = process.argv.slice(2) as [string, string];
// Not closed: this process is SIGKILLed mid-call, and the server must notice its client gone.
const { client } = await connectMcp({ root, flags: ['--allow-run'] });
await client.callTool({ name: 'bash', arguments: { command } }, undefined, { timeout: 3_600_000 });
