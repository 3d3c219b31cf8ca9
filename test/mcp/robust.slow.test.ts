/**
 * `mewcode mcp` against a demanding client, the official MCP SDK client over real stdio: a cancelled
 * bash call stops (its process group dies, its side effect never happens); a client SIGKILLed
 * mid-call leaves no server and no command behind; an input of 5 MB comes back clipped in the error
 * and the connection lives on; install_skill says it reaches the network; 40 concurrent calls print
 * no listener warning.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { QueuedStdioServerTransport } from '../../lib/mcp/stdio_transport.ts';
import { mcpClient, resultText } from '../helpers/mcp_client.ts';
import { killAfter, noSurvivors } from '../helpers/processes.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { waitFor } from '../helpers/wait.ts';

const server = (root: string, flags: string[] = []) => mcpClient({ root, flags, collectStderr: true });
const text = resultText;

test('mcp server: notifications/cancelled stops a running bash call — its process group dies, the side effect never happens', async () => {
  const root = tempDir();
  const nap = `3631.${process.pid}`;
  killAfter(nap);
  const { client } = await server(root, ['--allow-run']);
  const controller = new AbortController();
  const call = client.callTool(
    { name: 'bash', arguments: { command: `touch started; sleep ${nap}; touch effect` } },
    undefined,
    { signal: controller.signal, timeout: 3_600_000 },
  );
  const settled = call.then(
    () => 'answered',
    () => 'rejected',
  );
  await waitFor(() => existsSync(path.join(root, 'started')), 'the command to start');
  // The SDK client sends notifications/cancelled for the request when its signal aborts.
  controller.abort('the user changed their mind');
  assert.equal(await settled, 'rejected');
  await noSurvivors(nap);
  assert.equal(existsSync(path.join(root, 'effect')), false);
  // The connection is still good.
  const again = await client.callTool({ name: 'bash', arguments: { command: 'echo still here' } });
  assert.match(text(again), /still here/);
});

test('mcp server: when its client is SIGKILLed mid-call, the server aborts the call, kills the process group and exits', async () => {
  const root = tempDir();
  const nap = `3632.${process.pid}`;
  killAfter(nap);
  killAfter(root);
  const client = spawn(
    process.execPath,
    ['--import', TSX, path.join(REPO, 'test/mcp/kill_client.ts'), root, `touch started; sleep ${nap}; touch effect`],
    { stdio: 'ignore' },
  );
  const exited = new Promise((r) => client.once('exit', r));
  await waitFor(() => existsSync(path.join(root, 'started')), 'the command to start');
  client.kill('SIGKILL');
  await exited;
  // The server (its command line names the root) and the command are gone; the command's last step never ran.
  await noSurvivors(root);
  await noSurvivors(nap);
  assert.equal(existsSync(path.join(root, 'effect')), false);
});

test('mcp server: a 5 MB input comes back clipped in the error, and the connection lives on', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': 'alpha\n' });
  const { client } = await server(root);
  const huge = 'x'.repeat(5 * 1024 * 1024);
  for (const [name, args] of [
    ['read_file', { file_path: huge }],
    ['grep', { pattern: 'a', path: huge }],
    ['load_skill', { name: huge }],
    [huge, {}],
  ] as const) {
    const r = await client.callTool({ name, arguments: args });
    assert.equal(r.isError, true);
    const reply = JSON.stringify(r);
    assert.ok(reply.length < 4096, `${name.slice(0, 20)}: a reply of ${reply.length} characters`);
    assert.match(text(r), /x{200}… \[(\d+ of )?5242880 characters\]/);
  }
  const read = await client.callTool({ name: 'read_file', arguments: { file_path: 'a.txt' } });
  assert.equal(text(read), '     1\talpha');
});

test('mcp server: web_fetch, install_skill and bash are open-world; 40 concurrent calls print no MaxListenersExceededWarning', async () => {
  const root = tempDir();
  // Replies of ~200 KB each, so stdout's buffer fills and writes wait for 'drain'.
  writeTree(root, { 'big.txt': `${'0123456789 abcdefghijklmnopqrstuvwxyz\n'.repeat(5000)}` });
  const { client, stderr } = await server(root);
  const { tools } = await client.listTools();
  const openWorld = tools.filter((t) => t.annotations?.openWorldHint).map((t) => t.name);
  assert.deepEqual(openWorld, ['web_fetch', 'bash', 'install_skill']);
  const results = await Promise.all(
    Array.from({ length: 40 }, () => client.callTool({ name: 'read_file', arguments: { file_path: 'big.txt' } })),
  );
  assert.ok(results.every((r) => !r.isError && text(r).includes('1\t0123456789')));
  // Anything the server printed on stderr by now would include the warning.
  await client.callTool({ name: 'read_file', arguments: { file_path: 'big.txt', limit: 1 } });
  assert.ok(!/MaxListenersExceeded|drain listeners/.test(stderr()), stderr());
});

test('mcp stdio transport: replies queue behind one drain listener where the SDK’s own transport adds one per reply', async () => {
  const pending = (t: StdioServerTransport, out: PassThrough) => {
    const sends = Array.from({ length: 40 }, (_, i) => t.send({ jsonrpc: '2.0', id: i, result: {} }));
    return { sends, listeners: out.listenerCount('drain') };
  };
  // A pipe nobody reads yet: every write past the first reports a full buffer.
  const sdkOut = new PassThrough({ highWaterMark: 16 });
  sdkOut.setMaxListeners(100); // counted below, not printed as a warning in the test's output
  const sdk = pending(new StdioServerTransport(new PassThrough(), sdkOut), sdkOut);
  assert.ok(sdk.listeners > 10, `the SDK's transport: ${sdk.listeners} drain listeners`);
  sdkOut.resume();
  await Promise.all(sdk.sends);
  const ours = new PassThrough({ highWaterMark: 16 });
  const queued = pending(new QueuedStdioServerTransport(new PassThrough(), ours), ours);
  assert.ok(queued.listeners <= 1, `${queued.listeners} drain listeners`);
  const lines: string[] = [];
  ours.on('data', (c) => lines.push(...String(c).split('\n').filter(Boolean)));
  await Promise.all(queued.sends);
  assert.deepEqual(
    lines.map((l) => (JSON.parse(l) as { id: number }).id),
    Array.from({ length: 40 }, (_, i) => i),
  );
});
