/**
 * What a sandboxed command can read and reach, attacked for real in bubblewrap: credentials and
 * --deny-read paths are masked (not deleted), the rest of the host outside the system and the root is
 * not there, Unix-domain sockets on the host cannot be connected, and a per-host --allow-net is
 * refused at start instead of turning into all hosts.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Runtime } from '../../lib/runtime/runtime.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { sandboxAt } from './_sandbox.ts';

// test/system_tools.test.ts fails the run when bubblewrap is missing: these never skip.
const run = async (rt: Runtime, command: string) => (await rt.call('bash', { command })).content;
/** A directory of the test's own outside the root and outside /tmp (the sandbox's /tmp is private anyway). */
function hostDir(parent: string): string {
  const d = path.join(parent, `mewcode-confine-${process.pid}`);
  mkdirSync(d, { recursive: true });
  after(() => rmSync(d, { recursive: true, force: true }));
  return d;
}
/** With HOME (or PATH) set as given while the runtime is made: the runtime passes its own to commands. */
function withEnv<T>(vars: Record<string, string>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

test('sandbox reads: /etc/shadow, homes and files outside the system and the root are not readable', async () => {
  const root = tempDir();
  const home = process.env.HOME ?? '/root';
  const keys = [hostDir(home), hostDir('/var/tmp'), hostDir('/srv'), hostDir('/opt'), hostDir('/run')].map((d) => {
    const k = path.join(d, 'id_key');
    writeFileSync(k, 'PRIVATE KEY\n');
    return k;
  });
  const sb = sandboxAt(root);
  const out = await run(
    sb,
    [
      'cat /etc/shadow /etc/gshadow 2>/dev/null | wc -c',
      `ls -A ${home} | grep -c mewcode-confine`,
      `cat ${keys.join(' ')} 2>/dev/null | wc -c`,
      'for d in /home /srv /opt /mnt /media /run /var/lib /boot /sys; do [ -e $d ] && echo $d; done; echo .',
      `touch ${home}/mewcode-scratch-${process.pid} && echo home-writable`,
      'echo ok > in-root.txt && cat in-root.txt',
    ].join('; '),
  );
  assert.equal(out, 'exit_code: 0\n0\n0\n0\n.\nhome-writable\nok\n');
  assert.ok(!existsSync(path.join(home, `mewcode-scratch-${process.pid}`)), 'the private HOME leaked to the host');
  for (const k of keys) assert.equal(readFileSync(k, 'utf8'), 'PRIVATE KEY\n', 'masked, not deleted');
  assert.ok(readFileSync('/etc/shadow').length > 0);
});

test('sandbox reads: credentials under a visible HOME are masked, not deleted', async () => {
  const root = tempDir();
  const files = {
    'home/.ssh/id_ed25519': 'ssh key\n',
    'home/.aws/credentials': 'aws\n',
    'home/.gnupg/private-keys-v1.d/k.key': 'gpg\n',
    'home/.config/gcloud/credentials.db': 'gcloud\n',
    'home/.kube/config': 'kube\n',
    'home/.docker/config.json': '{"auths":{}}\n',
    'home/.netrc': 'machine x password y\n',
    'home/.npmrc': '//registry/:_authToken=z\n',
    'home/.git-credentials': 'https://u:p@host\n',
    'home/notes.txt': 'visible\n',
  };
  writeTree(root, files);
  const sb = withEnv({ HOME: path.join(root, 'home') }, () => sandboxAt(root));
  const secrets = Object.keys(files).filter((f) => !f.endsWith('notes.txt'));
  const out = await run(
    sb,
    `cat ${secrets.join(' ')} 2>/dev/null | wc -c; find home/.ssh home/.aws -mindepth 1 | wc -l; cat home/notes.txt`,
  );
  assert.equal(out, 'exit_code: 0\n0\n0\nvisible\n');
  for (const [f, content] of Object.entries(files)) assert.equal(readFileSync(path.join(root, f), 'utf8'), content);
});

test('sandbox reads: --deny-read paths and read-deny rules (plain and patterns) are masked', async () => {
  const root = tempDir();
  const outside = hostDir('/etc');
  writeFileSync(path.join(outside, 'token'), 'etc secret\n');
  writeTree(root, {
    'secret/key.txt': 'flag secret\n',
    'keys/a.txt': 'rule secret\n',
    'src/deep/b.pem': 'pattern secret\n',
    'src/c.txt': 'public\n',
    '.mewcode/settings.json': JSON.stringify({ permissions: { deny: ['*(keys/**)', 'read_file(**/*.pem)'] } }),
  });
  const sb = sandboxAt(root, { permissions: { allow: { run: true }, deny: { read: ['secret', outside] } } });
  const out = await run(
    sb,
    `cat secret/key.txt keys/a.txt src/deep/b.pem ${outside}/token 2>/dev/null | wc -c; find secret keys -mindepth 1 | wc -l; cat src/c.txt`,
  );
  assert.equal(out, 'exit_code: 0\n0\n0\npublic\n');
  assert.equal(readFileSync(path.join(root, 'src/deep/b.pem'), 'utf8'), 'pattern secret\n');
  assert.equal(readFileSync(path.join(root, 'secret/key.txt'), 'utf8'), 'flag secret\n');
});

test('sandbox reads: a toolchain on PATH outside the system is visible read-only, its siblings are not', async () => {
  const root = tempDir();
  const base = hostDir('/var/tmp');
  writeTree(base, { 'tc/bin/hello-mewcode': '#!/bin/sh\necho hello from the toolchain\n', 'other/secret': 'no\n' });
  chmodSync(path.join(base, 'tc/bin/hello-mewcode'), 0o755);
  const sb = withEnv({ PATH: `${path.join(base, 'tc/bin')}:${process.env.PATH}` }, () => sandboxAt(root));
  const out = await run(sb, `hello-mewcode; ls ${base}; touch ${base}/tc/x 2>/dev/null || echo read-only`);
  assert.equal(out, 'exit_code: 0\nhello from the toolchain\ntc\nread-only\n');
});

async function listen(at: string): Promise<Server> {
  const server = createServer((s) => s.end('hello\n'));
  await new Promise<void>((r) => server.listen(at, r));
  after(() => server.close());
  return server;
}

test('sandbox sockets: no Unix-domain socket of the host can be connected; socketpair streams still work', async () => {
  const root = tempDir();
  const sockets = [
    path.join(hostDir('/run'), 's.sock'),
    path.join(hostDir('/var/tmp'), 's.sock'),
    path.join(tempDir(), 's.sock'),
    path.join(root, 'app.sock'),
  ];
  for (const s of sockets) await listen(s);
  const connect = (p: string) =>
    `node -e 'const s=require("net").connect(process.argv[1]);s.on("data",d=>{console.log("CONNECTED");process.exit(0)});s.on("error",e=>{console.log(e.code);process.exit(0)})' ${p}`;
  const plain = runtimeAt(root, { workers: 0, permissions: { allow: { run: true } } });
  assert.equal(await run(plain, connect('app.sock')), 'exit_code: 0\nCONNECTED\n', 'reachable without the sandbox');
  for (const net of [false, true]) {
    const sb = sandboxAt(root, { permissions: { allow: { run: true, ...(net ? { net: true } : {}) } } });
    for (const s of sockets) {
      const out = await run(sb, connect(s));
      assert.match(out, /^exit_code: 0\n(EPERM|ENOENT)\n$/, `${s} (allow-net: ${net}): ${out}`);
    }
    const rest = await run(
      sb,
      [
        `node -e 'console.log(require("child_process").execFileSync("echo",["child ok"]).toString().trim())'`,
        `perl -e 'use Socket; print socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, 0) ? "stream pair ok\\n" : "stream pair: $!\\n"'`,
        `perl -e 'use Socket; print socketpair(my $a, my $b, AF_UNIX, SOCK_DGRAM, 0) ? "dgram pair ok\\n" : "dgram pair: $!\\n"'`,
        `perl -e 'syscall(425, 1, 0); print "io_uring: $!\\n"'`,
      ].join('; '),
    );
    assert.equal(
      rest,
      'exit_code: 0\nchild ok\nstream pair ok\ndgram pair: Operation not permitted\nio_uring: Operation not permitted\n',
    );
  }
});

test('sandbox network: a host list (or --deny-net beside a bare --allow-net) filters through the proxy; a bare --allow-net alone shares the network', async () => {
  const root = tempDir();
  const allow = { run: true as const };
  const listener = createServer((s) => s.end('reached\n'));
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  const port = (listener.address() as AddressInfo).port;
  try {
    const denied = sandboxAt(root, {
      permissions: { allow: { ...allow, net: true }, deny: { net: [`127.0.0.1:${port}`] } },
    });
    const r = await denied.call('bash', { command: `curl -sS http://127.0.0.1:${port}/; echo " rc=$?"` });
    assert.match(r.content, new RegExp(`network: refused 127\\.0\\.0\\.1:${port}: .*--deny-net covers it`), r.content);
    const shared = sandboxAt(root, { permissions: { allow: { ...allow, net: true } } });
    const s = await shared.call('bash', { command: `curl -sS --http0.9 --noproxy '*' http://127.0.0.1:${port}/` });
    assert.match(s.content, /reached/, 'the whole network, the host loopback included');
    assert.equal(s.meta?.network, undefined);
  } finally {
    listener.close();
  }
});
