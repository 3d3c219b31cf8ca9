/**
 * `mewcode mcp --http`: the flags turned into the HTTP server's options (listen address, token,
 * Origins, TLS, graces), refusing what would be unsafe or unclear with a usage error (exit 2): a
 * listen address off loopback without an explicit --token-file, half a TLS pair, HTTP flags without
 * --http. Main thread.
 */
import { readFileSync, statSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { version } from '../core/build_info.ts';
import { defaultTokenFile, loadToken, parseListen } from '../mcp/http_guard.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { type ParsedArgs, positiveInt, UsageError } from './args.ts';

const HTTP_ONLY = [
  'listen',
  'token-file',
  'allowed-origin',
  'tls-cert',
  'tls-key',
  'drain-grace',
  'resume-grace',
] as const;

/** Refuses the HTTP flags without --http (they would be silently ignored over stdio). */
export function checkStdioFlags(args: ParsedArgs): void {
  const given = HTTP_ONLY.find((f) => args.values[f] !== undefined);
  if (given) throw new UsageError(`--${given} is for mcp --http; over stdio it means nothing.`);
}

export async function serveHttpCli(runtime: Runtime, args: ParsedArgs): Promise<number> {
  const v = args.values;
  const listen = parseListen(v.listen);
  if (!listen.ok) throw new UsageError(listen.error);
  if (!listen.value.loopback && v['token-file'] === undefined)
    throw new UsageError(
      `--listen ${v.listen} is not loopback: other machines could call the tools, so give --token-file PATH ` +
        '(the bearer token clients must send) and, off a private network, --tls-cert and --tls-key.',
    );
  if ((v['tls-cert'] === undefined) !== (v['tls-key'] === undefined))
    throw new UsageError('--tls-cert and --tls-key go together.');
  const tokenFile = v['token-file'] ?? defaultTokenFile();
  const token = loadToken(tokenFile);
  if (!token.ok) throw new UsageError(token.error);
  const tls = v['tls-cert'] === undefined ? undefined : readTls(v['tls-cert'], v['tls-key'] as string);
  const drain = positiveInt('drain-grace', v['drain-grace'], true) ?? 10;
  const resume = positiveInt('resume-grace', v['resume-grace'], true) ?? 10;
  const { serveMcpHttp } = await import('../mcp/http_server.ts');
  process.stderr.write(
    `mewcode: MCP token ${token.value.created ? 'generated into' : 'read from'} ${tokenFile} (send Authorization: Bearer <it>)\n`,
  );
  return serveMcpHttp(runtime, version(), {
    listen: listen.value,
    token: token.value.token,
    allowOrigins: v['allowed-origin'] ?? [],
    ...(tls ? { tls } : {}),
    drainGraceMs: drain * 1000,
    limits: { resumeGraceMs: resume * 1000 },
    onListening: (url) => process.stderr.write(`mewcode: serving MCP at ${url}\n`),
  });
}

/** The certificate and key, checked as a pair of PEM files before the server starts; a key others may read is refused. */
function readTls(certFile: string, keyFile: string): { key: Buffer; cert: Buffer } {
  let pair: { key: Buffer; cert: Buffer };
  try {
    pair = { cert: readFileSync(certFile), key: readFileSync(keyFile) };
  } catch (e) {
    throw new UsageError(`Cannot read the TLS files: ${(e as Error).message}`);
  }
  if ((statSync(keyFile).mode & 0o077) !== 0)
    throw new UsageError(`The TLS key ${keyFile} may be read by others: chmod 600 it.`);
  try {
    createSecureContext(pair);
  } catch (e) {
    throw new UsageError(`The TLS files are not a PEM certificate and its key: ${(e as Error).message}`);
  }
  return pair;
}
