/**
 * The sandbox's network filtered by host (--sandbox --allow-net=host:port): real bubblewrap, real
 * curl, git and node inside it, loopback HTTP servers on the host standing in for the internet. Only
 * the allowed server answers, through every way a client may use the proxy (forwarded HTTP, CONNECT,
 * SOCKS5 with the name sent to the proxy); a direct connection and DNS get nothing; each attempt is
 * decided by the policy (flags, rules, the prompt) and recorded, and a refusal names the host and the
 * flag that would allow it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, test } from 'node:test';
import type { PromptRequest } from '../../lib/prompt/prompt.ts';
import { runCli } from '../helpers/cli.ts';
import { mcpClient, resultText } from '../helpers/mcp_client.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { loopbackCert } from '../helpers/tls.ts';
import { waitFor } from '../helpers/wait.ts';
import { sandboxAt } from './_sandbox.ts';

requireTool('bwrap');
requireTool('curl');
requireTool('git');
requireTool('openssl');

interface Site {
  port: number;
  hits: string[];
}

/** A loopback HTTP server answering `hello from PORT`, or files under `dir` when given. */
async function site(dir?: string): Promise<Site> {
  const hits: string[] = [];
  let port = 0;
  const made = createServer((q, s) => {
    hits.push(q.url ?? '');
    if (!dir) return s.end(`hello from ${port}\n`);
    const file = path.join(dir, decodeURIComponent(new URL(q.url ?? '/', 'http://x').pathname));
    if (!file.startsWith(dir) || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      s.statusCode = 404;
      return s.end();
    }
    createReadStream(file).pipe(s);
  });
  await new Promise<void>((r) => made.listen(0, '127.0.0.1', r));
  port = (made.address() as AddressInfo).port;
  after(() => new Promise<void>((r) => made.close(() => r())));
  return { port, hits };
}

const allowNet = (net: string[], extra = {}) => ({ permissions: { allow: { run: true as const, net } }, ...extra });

test('sandbox network by host: only the allowed server answers, forwarded, through CONNECT and SOCKS5; the refusal names the host and the flag', async () => {
  const [open, closed] = [await site(), await site()];
  const rt = sandboxAt(tempDir(), allowNet([`127.0.0.1:${open.port}`]));
  const curl = (args: string) => `curl -sS --max-time 20 ${args}; echo " rc=$?"`;
  const lines = [
    curl(`http://127.0.0.1:${open.port}/forwarded`),
    curl(`-p http://127.0.0.1:${open.port}/tunnelled`),
    curl(`--proxy socks5h://127.0.0.1:3128 http://127.0.0.1:${open.port}/socks`),
    curl(`-f http://127.0.0.1:${closed.port}/refused`),
    curl(`-p http://127.0.0.1:${closed.port}/refused-tunnel`),
    curl(`--proxy socks5h://127.0.0.1:3128 http://127.0.0.1:${closed.port}/refused-socks`),
    curl(`--noproxy '*' http://127.0.0.1:${open.port}/direct`),
  ];
  const r = await rt.call('bash', { command: lines.join('\n') });
  assert.equal(r.isError, false, r.content);
  const out = r.content.split('\n');
  const hello = `hello from ${open.port}`;
  assert.deepEqual(out.slice(1, 7), [hello, ' rc=0', hello, ' rc=0', hello, ' rc=0'], r.content);
  assert.match(r.content, /returned error: 403\n rc=22/);
  assert.match(r.content, /CONNECT tunnel failed, response 403\n rc=56/);
  assert.match(r.content, /SOCKS5[^\n]*\n rc=97/);
  assert.match(r.content, /Failed to connect to 127\.0\.0\.1[^\n]*\n rc=7/, 'a direct connection has no network');
  assert.deepEqual(open.hits, ['/forwarded', '/tunnelled', '/socks']);
  assert.deepEqual(closed.hits, [], 'the refused server was never reached');
  const refused = `127.0.0.1:${closed.port}`;
  // The library's wording names the option; the CLI's, the flag (test/cli_sandbox_net below).
  assert.match(r.content, new RegExp(`network: refused ${refused}: .*net: \\["${refused}"\\]`));
  const attempts = r.meta?.network?.attempts ?? [];
  assert.deepEqual(
    attempts.map((a) => `${a.via} ${a.port} ${a.allowed}`),
    [
      `http ${open.port} true`,
      `connect ${open.port} true`,
      `socks5 ${open.port} true`,
      `http ${closed.port} false`,
      `connect ${closed.port} false`,
      `socks5 ${closed.port} false`,
    ],
  );
});

test('sandbox network by host: git clones over http and a node program reaches the allowed host through the proxy variables', async () => {
  const served = tempDir();
  const src = path.join(served, 'src');
  mkdirSync(src);
  writeTree(src, { 'README.md': 'cloned through the proxy\n' });
  const git = (cwd: string, ...args: string[]) => {
    const g = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });
    assert.equal(g.status, 0, g.stderr);
  };
  git(src, 'init', '-q');
  git(src, 'add', '.');
  git(src, 'commit', '-qm', 'one');
  git(served, 'clone', '-q', '--bare', 'src', 'repo.git');
  git(path.join(served, 'repo.git'), 'update-server-info'); // git's "dumb" http: plain files
  const files = await site(served);
  const other = await site();
  const rt = sandboxAt(tempDir(), allowNet([`127.0.0.1:${files.port}`]));
  const node = `node -e "
const u = new URL(process.env.http_proxy);
require('http').get({ host: u.hostname, port: u.port, path: process.argv[1] }, (r) => {
  let b = ''; r.on('data', (c) => (b += c)); r.on('end', () => console.log(r.statusCode, b.trim()));
}).on('error', (e) => console.log('error', e.code));"`;
  const command = [
    `git clone -q http://127.0.0.1:${files.port}/repo.git cloned && cat cloned/README.md`,
    `git clone -q http://127.0.0.1:${other.port}/repo.git refused; echo "git rc=$?"`,
    `${node} http://127.0.0.1:${files.port}/repo.git/HEAD`,
    `${node} http://127.0.0.1:${other.port}/x`,
  ].join('\n');
  const r = await rt.call('bash', { command });
  assert.equal(r.isError, false, r.content);
  assert.match(r.content, /^exit_code: 0\ncloned through the proxy\n/);
  assert.match(r.content, /git rc=128/);
  assert.match(r.content, /\n200 ref: refs\/heads\/\w+\n/, 'node reached the allowed host');
  assert.match(r.content, new RegExp(`\\n403 MewCode sandbox: .*127\\.0\\.0\\.1:${other.port}`));
  assert.deepEqual(other.hits, []);
});

test('sandbox network by host: DNS gives the command nothing, a refused name is never resolved, and a name resolving to loopback needs that address named', async () => {
  const s = await site();
  const rt = sandboxAt(tempDir(), allowNet([`localhost:${s.port}`]));
  const command = [
    'getent hosts localhost.invalid example.com; echo "getent rc=$?"',
    `node -e "require('net').connect('/tmp/any.sock').on('error', (e) => console.log('unix', e.code))"`,
    `curl -sS --max-time 20 --proxy socks5h://127.0.0.1:3128 http://forbidden.invalid:${s.port}/; echo " rc=$?"`,
    `curl -sS --max-time 20 -f http://localhost:${s.port}/by-name; echo " rc=$?"`,
  ].join('\n');
  const r = await rt.call('bash', { command });
  assert.match(r.content, /getent rc=2/);
  assert.match(r.content, /\nunix EPERM\n/, 'no Unix socket, whatever the path');
  assert.deepEqual(s.hits, [], r.content);
  const attempts = r.meta?.network?.attempts ?? [];
  const forbidden = attempts.find((a) => a.host === 'forbidden.invalid');
  assert.ok(forbidden && !forbidden.allowed && forbidden.addresses === undefined, JSON.stringify(attempts));
  const byName = attempts.find((a) => a.host === 'localhost');
  assert.ok(byName && !byName.allowed, JSON.stringify(attempts));
  assert.doesNotMatch(byName.why ?? '', /127\.0\.0\.1/, 'the command is not told the internal address');
  assert.match(byName.detail ?? '', /127\.0\.0\.1/, 'the record keeps it');

  const named = sandboxAt(tempDir(), allowNet([`localhost:${s.port}`, `127.0.0.1:${s.port}`]));
  const ok = await named.call('bash', { command: `curl -sS --max-time 20 http://localhost:${s.port}/by-name` });
  assert.match(ok.content, new RegExp(`hello from ${s.port}`), ok.content);
});

test('sandbox network by host: net rules decide, the prompt is asked once per host and shows it, a background job notes its refusals', async () => {
  const [a, b] = [await site(), await site()];
  const root = tempDir();
  writeTree(root, {
    '.mewcode/settings.json': JSON.stringify({ permissions: { allow: [`net(127.0.0.1:${a.port})`] } }),
  });
  const asked: PromptRequest[] = [];
  const rt = sandboxAt(root, {
    trust: true,
    prompt: {
      ask: async (q) => {
        asked.push(q);
        return 'deny';
      },
    },
  });
  const twice = `curl -sS -f http://127.0.0.1:${b.port}/; curl -sS -f http://127.0.0.1:${b.port}/`;
  const r = await rt.call('bash', { command: `curl -sS http://127.0.0.1:${a.port}/rule\n${twice}` });
  assert.match(r.content, new RegExp(`hello from ${a.port}`), r.content);
  assert.deepEqual(
    asked.map((q) => [q.tool, q.asks]),
    [['bash', [{ kind: 'net', subject: `127.0.0.1:${b.port}` }]]],
    'the rule allowed one host; the other was asked about once',
  );
  assert.match(r.content, new RegExp(`network: refused 127\\.0\\.0\\.1:${b.port}: The user declined`));

  const started = await rt.call('bash', {
    command: `curl -sS -f http://127.0.0.1:${b.port}/job; echo "job rc=$?"`,
    run_in_background: true,
  });
  const id = started.meta?.bashId as string;
  let seen = '';
  await waitFor(async () => {
    seen += (await rt.call('bash_output', { bash_id: id, wait_ms: 2000 })).content;
    return /job rc=22/.test(seen) && /\[mewcode\] network: refused/.test(seen);
  }, 'the job to end with its refusal noted');
  assert.match(seen, new RegExp(`\\[mewcode\\] network: refused 127\\.0\\.0\\.1:${b.port}`));
  assert.deepEqual(b.hits, []);
});

test('sandbox network by host: the command line — --allow-net=host:port reaches that server, a refusal names the flag', async () => {
  const [open, closed] = [await site(), await site()];
  const command = `curl -sS http://127.0.0.1:${open.port}/cli; curl -sS -f http://127.0.0.1:${closed.port}/cli; echo "rc=$?"`;
  const r = await runCli(
    ['call', 'bash', JSON.stringify({ command }), '--sandbox', '--allow-run', `--allow-net=127.0.0.1:${open.port}`],
    { cwd: tempDir() },
  );
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`hello from ${open.port}\n`));
  const refused = `127\\.0\\.0\\.1:${closed.port}`;
  assert.match(r.out, new RegExp(`rc=22\n\nnetwork: refused ${refused}: .*Run again with --allow-net=${refused}\\.`));
  assert.deepEqual(closed.hits, []);
});

test('sandbox network by host: served over MCP — the SDK client runs a sandboxed command that reaches only the allowed server', async () => {
  const [open, closed] = [await site(), await site()];
  const flags = ['--sandbox', '--allow-run', `--allow-net=127.0.0.1:${open.port}`];
  const { client } = await mcpClient({ root: tempDir(), flags });
  const command = `curl -sS http://127.0.0.1:${open.port}/mcp; curl -sS -f http://127.0.0.1:${closed.port}/mcp`;
  const r = await client.callTool({ name: 'bash', arguments: { command } });
  const text = resultText(r);
  assert.match(text, new RegExp(`hello from ${open.port}\n`), text);
  assert.match(
    text,
    new RegExp(`network: refused 127\\.0\\.0\\.1:${closed.port}: .*--allow-net=127\\.0\\.0\\.1:${closed.port}`),
  );
  assert.deepEqual(closed.hits, []);
});

test('sandbox network by host: TLS end to end through a CONNECT tunnel — the command checks the server certificate, the proxy sees only the host', async () => {
  const root = tempDir();
  const cert = loopbackCert(root); // in the root: the sandbox shows it
  const secure = createHttps({ key: cert.key, cert: cert.cert }, (_q, s) => s.end('secret over tls\n'));
  await new Promise<void>((r) => secure.listen(0, '127.0.0.1', r));
  after(() => new Promise<void>((r) => secure.close(() => r())));
  const port = (secure.address() as AddressInfo).port;
  const rt = sandboxAt(root, allowNet([`127.0.0.1:${port}`]));
  const r = await rt.call('bash', { command: `curl -sS --cacert cert.pem https://127.0.0.1:${port}/` });
  assert.match(r.content, /^exit_code: 0\nsecret over tls\n/, r.content);
  assert.deepEqual(
    r.meta?.network?.attempts.map((a) => [a.via, a.host, a.port, a.allowed]),
    [['connect', '127.0.0.1', port, true]],
  );
});

test('sandbox network by host: "always" remembers the host as a net rule, and a command asking for many hosts is refused after ten without asking', async () => {
  const s = await site();
  const root = tempDir();
  writeTree(root, { '.mewcode/settings.json': JSON.stringify({ permissions: { allow: ['net(never.invalid)'] } }) });
  const asked: string[] = [];
  let answer: 'always' | 'deny' = 'always';
  const rt = sandboxAt(root, {
    trust: true,
    prompt: {
      ask: async (q) => {
        asked.push(q.asks[0]?.subject ?? '');
        return answer;
      },
    },
  });
  const once = await rt.call('bash', { command: `curl -sS http://127.0.0.1:${s.port}/first` });
  assert.match(once.content, new RegExp(`hello from ${s.port}`), once.content);
  const again = await rt.call('bash', { command: `curl -sS http://127.0.0.1:${s.port}/again` });
  assert.match(again.content, new RegExp(`hello from ${s.port}`), again.content);
  assert.deepEqual(asked, [`127.0.0.1:${s.port}`], 'asked once: the rule "always" added speaks to connections');
  const local = JSON.parse(readFileSync(path.join(root, '.mewcode/settings.local.json'), 'utf8'));
  assert.deepEqual(local.permissions.allow, [`net(=127.0.0.1:${s.port})`]);

  answer = 'deny';
  const ports = Array.from({ length: 15 }, (_, i) => 1 + i);
  const storm = ports.map((p) => `curl -sS --max-time 20 -f http://127.0.0.1:${p}/ 2>/dev/null`).join('; ');
  const r = await rt.call('bash', { command: storm });
  assert.equal(asked.length, 1 + 10, 'ten refusals, then no more questions');
  assert.match(r.content, /10 hosts were refused already in this command, so the rest are refused without asking/);
  assert.equal(r.meta?.network?.attempts.filter((a) => !a.allowed).length, 15);
});
