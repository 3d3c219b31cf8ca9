/**
 * `mewcode mcp --http` as a child process on a free loopback port, and the MCP SDK's own Streamable
 * HTTP client connected to it with the bearer token. The server is SIGKILLed and the clients closed
 * when the test (or test file) ends.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLEAN_ENV, MEWCODE } from './cli.ts';
import { tempDir } from './temp.ts';
import { waitFor } from './wait.ts';

export interface HttpServer {
  /** The /mcp address. */
  url: string;
  token: string;
  tokenFile: string;
  child: ChildProcess;
  stderr(): string;
  /** Settles with the exit code (or the signal's name). */
  exited: Promise<number | string>;
}

/** Starts the server with `--root root`, flags before `mcp` and flags after `--http`. */
export async function startHttpServer(
  root: string,
  o: { flags?: string[]; httpFlags?: string[]; env?: Record<string, string> } = {},
): Promise<HttpServer> {
  const tokenFile = path.join(tempDir(), 'token');
  const child = spawn(
    process.execPath,
    [
      ...MEWCODE,
      '--root',
      root,
      ...(o.flags ?? []),
      'mcp',
      '--http',
      '--listen',
      '127.0.0.1:0',
      '--token-file',
      tokenFile,
      ...(o.httpFlags ?? []),
    ],
    { env: { ...CLEAN_ENV, ...o.env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (c) => {
    stderr += c;
  });
  const exited = new Promise<number | string>((r) => child.once('exit', (code, signal) => r(code ?? signal ?? -1)));
  after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let url = '';
  await waitFor(() => {
    url = /serving MCP at (\S+)/.exec(stderr)?.[1] ?? '';
    if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}: ${stderr}`);
    return url !== '';
  }, 'the HTTP server to listen');
  return { url, token: readFileSync(tokenFile, 'utf8').trim(), tokenFile, child, stderr: () => stderr, exited };
}

/** An SDK client over Streamable HTTP, closed when the test ends. */
export async function httpClient(s: { url: string; token: string }, headers: Record<string, string> = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(s.url), {
    requestInit: { headers: { Authorization: `Bearer ${s.token}`, ...headers } },
  });
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(transport);
  after(() => client.close());
  return { client, transport };
}

export const ACCEPT = 'application/json, text/event-stream';
export const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A session opened by hand (initialize, then initialized), for the raw requests below. */
export async function rawSession(s: HttpServer): Promise<Record<string, string>> {
  const headers = { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json', Accept: ACCEPT };
  const init = await fetch(s.url, { method: 'POST', headers, body: JSON.stringify(INIT) });
  assert.equal(init.status, 200);
  await init.text();
  const session = {
    ...headers,
    'Mcp-Session-Id': init.headers.get('mcp-session-id') as string,
    // From this version on a request's stream opens with a priming event carrying an id to resume from.
    'Mcp-Protocol-Version': '2025-11-25',
  };
  const note = { jsonrpc: '2.0', method: 'notifications/initialized' };
  assert.equal((await fetch(s.url, { method: 'POST', headers: session, body: JSON.stringify(note) })).status, 202);
  return session;
}
