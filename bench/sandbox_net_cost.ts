/**
 * What the sandbox's network by host costs (docs/sandbox.md, "The network, by host"):
 *
 *   node --import tsx bench/sandbox_net_cost.ts [--n 15] [--mb 10]
 *
 * Three warm library runtimes on one root, all with --sandbox: no network, the whole network, and
 * one host allowed (the proxy). Interleaved, the order alternating: `bash true` on each (the proxy's
 * price is the helper's Node start), then `curl` of an `--mb` MiB body from a loopback server — straight
 * through the whole network, and through the proxy. Prints medians and ratios; figures only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createRuntime, type Runtime } from '../lib/runtime/runtime.ts';
import { median } from './oneshot.ts';

const { values } = parseArgs({ options: { n: { type: 'string' }, mb: { type: 'string' } } });
const N = Number(values.n ?? 15);
const MB = Number(values.mb ?? 10);

const body = Buffer.alloc(MB * 1024 * 1024, 'x');
const server = createServer((_q, s) => s.end(body));
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as AddressInfo).port;
const root = mkdtempSync(path.join(tmpdir(), 'mewcode-sandbox-net-bench-'));

function runtime(net: true | string[] | undefined): Runtime {
  const made = createRuntime({
    root,
    home: null,
    workers: 0,
    sandbox: true,
    journal: false,
    permissions: { allow: { run: true, ...(net ? { net } : {}) } },
  });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}

const none = runtime(undefined);
const whole = runtime(true);
const proxied = runtime([`127.0.0.1:${port}`]);

async function timed(rt: Runtime, command: string): Promise<number> {
  const t = performance.now();
  const r = await rt.call('bash', { command });
  if (r.isError || !r.content.startsWith('exit_code: 0')) throw new Error(r.content.slice(0, 500));
  return performance.now() - t;
}

const start: Record<string, number[]> = { none: [], whole: [], proxy: [] };
const fetch: Record<string, number[]> = { whole: [], proxy: [] };
const curl = `curl -sS -o /dev/null http://127.0.0.1:${port}/`;
for (let i = 0; i < N; i++) {
  const order = i % 2 === 0 ? (['none', 'whole', 'proxy'] as const) : (['proxy', 'whole', 'none'] as const);
  for (const k of order) start[k]?.push(await timed({ none, whole, proxy: proxied }[k], 'true'));
  const fetchOrder = i % 2 === 0 ? (['whole', 'proxy'] as const) : (['proxy', 'whole'] as const);
  for (const k of fetchOrder)
    fetch[k]?.push(await timed(k === 'whole' ? whole : proxied, k === 'whole' ? `${curl} --noproxy '*'` : curl));
}
const m = (xs: number[]) => median(xs);
const line = (label: string, v: number) => `${label.padEnd(40)} ${v.toFixed(1).padStart(8)} ms`;
console.log(`${N} interleaved runs each, load average ${(await import('node:os')).loadavg()[0]?.toFixed(1)}`);
console.log(line('bash true, no network', m(start.none ?? [])));
console.log(line('bash true, the whole network', m(start.whole ?? [])));
console.log(line('bash true, one host (the proxy)', m(start.proxy ?? [])));
console.log(line(`curl ${MB} MiB, the whole network`, m(fetch.whole ?? [])));
console.log(line(`curl ${MB} MiB, through the proxy`, m(fetch.proxy ?? [])));
console.log(`proxy / none, bash true: ${(m(start.proxy ?? []) / m(start.none ?? [])).toFixed(2)}×`);
console.log(`proxy / whole, curl: ${(m(fetch.proxy ?? []) / m(fetch.whole ?? [])).toFixed(2)}×`);
for (const rt of [none, whole, proxied]) await rt.close();
server.close();
rmSync(root, { recursive: true, force: true });
