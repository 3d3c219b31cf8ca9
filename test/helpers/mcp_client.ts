/**
 * The MCP SDK's own client connected over stdio to a `mewcode mcp` server it starts: from source by
 * default, or any installed or bundled program. Closed when the test (or test file) ends.
 */
import { after } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MEWCODE } from './cli.ts';

export interface McpOptions {
  /** `--root` for the server. */
  root?: string;
  /** Flags before `mcp` (`--allow-run`…). */
  flags?: string[];
  /** The CLI's whole arguments instead (default: `--root ROOT ...flags mcp`). */
  args?: string[];
  /** The program and the arguments before the CLI's own (default: node running mewcode.ts from source). */
  program?: { command: string; args?: string[] };
  cwd?: string;
  env?: Record<string, string>;
  /** Keep what the server writes to stderr, for `stderr()` (otherwise it goes nowhere). */
  collectStderr?: boolean;
}

export interface McpConnection {
  client: Client;
  /** What the server wrote to stderr so far ('' unless `collectStderr`). */
  stderr(): string;
}

/** Connects a client; the caller closes it (a client process of its own, which is SIGKILLed). */
export async function connectMcp(o: McpOptions): Promise<McpConnection> {
  const program = o.program ?? { command: process.execPath, args: MEWCODE };
  const transport = new StdioClientTransport({
    command: program.command,
    args: [...(program.args ?? []), ...(o.args ?? ['--root', o.root ?? '.', ...(o.flags ?? []), 'mcp'])],
    ...(o.cwd ? { cwd: o.cwd } : {}),
    env: { ...testDirs(), ...o.env },
    stderr: o.collectStderr ? 'pipe' : 'ignore',
  });
  let stderr = '';
  transport.stderr?.on('data', (c) => {
    stderr += c;
  });
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/**
 * The SDK gives the server only a whitelist of the environment (HOME, PATH, …), so without these the
 * server's index cache and undo journal would land in the user's own directories, not test/run.ts's
 * temporary ones, and its spill files (a background job's output) in /tmp, where the test that
 * removes them (by its own TMPDIR) does not look.
 */
function testDirs(): Record<string, string> {
  const dirs: Record<string, string> = {};
  for (const k of ['XDG_CACHE_HOME', 'XDG_DATA_HOME', 'TMPDIR']) if (process.env[k]) dirs[k] = process.env[k];
  return dirs;
}

/** A client to a server that lives until the test (or, at top level, the test file) ends. */
export async function mcpClient(o: McpOptions): Promise<McpConnection> {
  const connection = await connectMcp(o);
  after(() => connection.client.close());
  return connection;
}

/** The text of a tool result's first content block ('' when it has none). */
export const resultText = (r: unknown) =>
  (((r as { content?: unknown }).content ?? []) as { text?: string }[])[0]?.text ?? '';
