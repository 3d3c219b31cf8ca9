/**
 * web_fetch over real TLS on loopback, through the command line (a certificate the process trusts
 * through NODE_EXTRA_CA_CERTS, read only when a process starts): an https page is fetched, a redirect
 * from https down to http is refused and named, and a certificate nobody trusts is a clear error with
 * nothing read.
 */
import assert from 'node:assert/strict';
import { createServer as createHttp } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir } from '../helpers/temp.ts';
import { loopbackCert } from '../helpers/tls.ts';

requireTool('openssl');

test('web_fetch over https: a page through TLS, no redirect down to http, an untrusted certificate refused', async () => {
  const cert = loopbackCert(tempDir());
  const plainHits: string[] = [];
  const plain = createHttp((q, s) => {
    plainHits.push(q.url ?? '');
    s.end('plain');
  });
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  const plainPort = (plain.address() as AddressInfo).port;
  const secure = createHttps({ key: cert.key, cert: cert.cert }, (q, s) => {
    if (q.url === '/down') {
      s.writeHead(302, { location: `http://127.0.0.1:${plainPort}/after` });
      return s.end();
    }
    s.writeHead(200, { 'content-type': 'text/html' });
    s.end(
      '<html><body><main><h1>Over TLS</h1><p>The secure page, long enough to count as content.</p></main></body></html>',
    );
  });
  await new Promise<void>((r) => secure.listen(0, '127.0.0.1', r));
  const port = (secure.address() as AddressInfo).port;
  after(() => {
    plain.close();
    secure.close();
  });
  const fetch = (url: string, trusted: boolean) =>
    runCli(['call', 'web_fetch', JSON.stringify({ url }), `--allow-net=127.0.0.1:${port},127.0.0.1:${plainPort}`], {
      cwd: tempDir(),
      env: trusted ? { NODE_EXTRA_CA_CERTS: cert.certFile } : {},
    });
  const page = await fetch(`https://127.0.0.1:${port}/page`, true);
  assert.equal(page.code, 0, page.out + page.err);
  assert.match(page.out, /# Over TLS\n+The secure page/);
  assert.match(page.out, /untrusted/i);

  const down = await fetch(`https://127.0.0.1:${port}/down`, true);
  assert.equal(down.code, 1);
  assert.match(
    down.out + down.err,
    new RegExp(`redirected to http://127\\.0\\.0\\.1:${plainPort}/after: a redirect may not drop the encryption`),
  );
  assert.deepEqual(plainHits, []);

  const untrusted = await fetch(`https://127.0.0.1:${port}/page`, false);
  assert.equal(untrusted.code, 1);
  assert.match(untrusted.out + untrusted.err, /certificate/i, untrusted.out + untrusted.err);
  assert.doesNotMatch(untrusted.out + untrusted.err, /Over TLS/);
});
