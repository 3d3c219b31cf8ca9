/**
 * MCP over Streamable HTTP against MCP over stdio, under 50 concurrent clients.
 *
 *   node --import tsx bench/mcp_http.ts [--clients 50] [--calls 100]
 *
 * Each side is one `mewcode mcp` server process on its own copy of a temp tree (audit log off), so
 * one runtime serves everyone either way. HTTP: C clients of the official SDK, each its own session.
 * stdio: one SDK client on the server's pipe with C concurrent callers — stdio has one client per
 * process, and C processes would be C runtimes whose writes to a shared file nothing serialises, so
 * the fair stdio contender for "one runtime, C callers at once" is one pipe carrying C callers. Each
 * caller makes N calls, round-robin: read_file (a shared file), grep, edit_file appending its own line
 * to its own file, edit_file appending its own line to one shared file. Checks afterwards that every
 * call was answered without error and that each file holds every line written to it exactly once (no
 * lost or mixed edits). An edit refused because the file changed since the runtime last recorded it
 * (nothing written) is read again and retried, as a model would, and the retries counted; a call's
 * time includes its retries. Prints p50/p99 per call, kind by kind, and the server's peak RSS (sampled from
 * /proc every 50 ms) as a table and as JSON. Figures only: no threshold.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const { values } = parseArgs({ options: { clients: { type: 'string' }, calls: { type: 'string' } } });
const C = Number(values.clients ?? 50);
const N = Number(values.calls ?? 100);
const MEWCODE = ['--import', 'tsx', path.join(import.meta.dirname, '..', 'mewcode.ts')];
const KINDS = ['read_file', 'grep', 'edit_own', 'edit_shared'] as const;
type Kind = (typeof KINDS)[number];

const base = mkdtempSync(path.join(tmpdir(), 'mewcode-mcp-http-bench-'));

function tree(name: string): string {
  const root = path.join(base, name);
  mkdirSync(path.join(root, 'src'), { recursive: true });
  for (let i = 0; i < 200; i++)
    writeFileSync(path.join(root, 'src', `m${i}.ts`), `export const v${i} = ${i};\n// needle ${i % 7}\n`);
  writeFileSync(path.join(root, 'shared.txt'), 'END\n');
  for (let c = 0; c < C; c++) writeFileSync(path.join(root, `own${c}.txt`), 'END\n');
  return root;
}

function call(kind: Kind, c: number, j: number): { name: string; arguments: Record<string, unknown> } {
  const line = `client ${c} call ${j}`;
  if (kind === 'read_file') return { name: 'read_file', arguments: { file_path: 'src/m1.ts' } };
  if (kind === 'grep') return { name: 'grep', arguments: { pattern: `needle ${c % 7}`, output_mode: 'count' } };
  const file = kind === 'edit_own' ? `own${c}.txt` : 'shared.txt';
  return { name: 'edit_file', arguments: { file_path: file, old_string: 'END\n', new_string: `${line}\nEND\n` } };
}

/** Peak VmRSS of `pid` while `until` runs. */
async function peakRss<T>(pid: number, until: Promise<T>): Promise<{ value: T; peakKiB: number }> {
  let peak = 0;
  const sample = () => {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    peak = Math.max(peak, Number(m?.[1] ?? 0));
  };
  const timer = setInterval(sample, 50);
  sample();
  const value = await until;
  clearInterval(timer);
  sample();
  return { value, peakKiB: peak };
}

interface Outcome {
  ms: Record<Kind, number[]>;
  errors: string[];
  retries: number;
}

const STALE = /changed since it was last read/;
const text = (r: unknown) => (((r as { content?: unknown }).content ?? []) as { text?: string }[])[0]?.text ?? '';

/** C callers × N calls on the clients given (one per caller, or one shared). */
async function drive(clientOf: (c: number) => Client): Promise<Outcome> {
  const ms = Object.fromEntries(KINDS.map((k) => [k, [] as number[]])) as Record<Kind, number[]>;
  const errors: string[] = [];
  let retries = 0;
  await Promise.all(
    Array.from({ length: C }, async (_, c) => {
      const client = clientOf(c);
      // The write tools edit only what was read first (untimed).
      for (const file of [`own${c}.txt`, 'shared.txt'])
        await client.callTool({ name: 'read_file', arguments: { file_path: file } });
      for (let j = 0; j < N; j++) {
        const kind = KINDS[j % KINDS.length] as Kind;
        const t = performance.now();
        try {
          const want = call(kind, c, j);
          let r = await client.callTool(want, undefined, { timeout: 600_000 });
          // A read racing a write may leave the runtime's record of the file older than the file: the
          // edit is refused, nothing written, and the client reads again and retries, as a model does.
          for (let tries = 0; r.isError && STALE.test(text(r)) && tries < 50; tries++) {
            retries++;
            await client.callTool({ name: 'read_file', arguments: { file_path: want.arguments.file_path } });
            r = await client.callTool(want, undefined, { timeout: 600_000 });
          }
          if (r.isError) errors.push(`${kind}: ${text(r).slice(0, 200)}`);
        } catch (e) {
          errors.push(`${kind}: ${(e as Error).message}`);
        }
        ms[kind].push(performance.now() - t);
      }
    }),
  );
  return { ms, errors, retries };
}

/** Lines written to each file exactly once, in each caller's order. */
function check(root: string): string[] {
  const problems: string[] = [];
  const shared = readFileSync(path.join(root, 'shared.txt'), 'utf8').split('\n');
  for (let c = 0; c < C; c++) {
    const own = readFileSync(path.join(root, `own${c}.txt`), 'utf8').split('\n');
    for (let j = 0; j < N; j++) {
      const line = `client ${c} call ${j}`;
      const kind = KINDS[j % KINDS.length];
      const lines = kind === 'edit_own' ? own : kind === 'edit_shared' ? shared : undefined;
      if (lines && lines.filter((l) => l === line).length !== 1) problems.push(`${line}: not there exactly once`);
    }
  }
  return problems;
}

async function overHttp(): Promise<Result> {
  const root = tree('http');
  const tokenFile = path.join(base, 'token');
  const child = spawn(
    process.execPath,
    [
      ...MEWCODE,
      '--root',
      root,
      '--allow-write',
      '--audit-log',
      'off',
      'mcp',
      '--http',
      '--listen',
      '127.0.0.1:0',
      '--token-file',
      tokenFile,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const url = await new Promise<string>((resolve) => {
    let err = '';
    child.stderr?.on('data', (d) => {
      err += d;
      const m = /serving MCP at (\S+)/.exec(err);
      if (m) resolve(m[1] as string);
    });
  });
  const token = readFileSync(tokenFile, 'utf8').trim();
  const clients = await Promise.all(
    Array.from({ length: C }, async () => {
      const client = new Client({ name: 'bench', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      return client;
    }),
  );
  const run = await peakRss(
    child.pid as number,
    drive((c) => clients[c] as Client),
  );
  await Promise.all(clients.map((c) => c.close()));
  await stop(child);
  return summary('http', run.value, run.peakKiB, check(root));
}

async function overStdio(): Promise<Result> {
  const root = tree('stdio');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...MEWCODE, '--root', root, '--allow-write', '--audit-log', 'off', 'mcp'],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  const run = await peakRss(
    transport.pid as number,
    drive(() => client),
  );
  await client.close();
  return summary('stdio', run.value, run.peakKiB, check(root));
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

interface Result {
  transport: string;
  calls: number;
  errors: number;
  staleRetries: number;
  lostOrMixedEdits: number;
  peakRssMiB: number;
  p50Ms: Record<string, number>;
  p99Ms: Record<string, number>;
  firstErrors: string[];
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0) * 10) / 10;
};

function summary(transport: string, o: Outcome, peakKiB: number, problems: string[]): Result {
  const all = KINDS.flatMap((k) => o.ms[k]);
  const per = (p: number) => ({ all: pct(all, p), ...Object.fromEntries(KINDS.map((k) => [k, pct(o.ms[k], p)])) });
  return {
    transport,
    calls: all.length,
    errors: o.errors.length,
    staleRetries: o.retries,
    lostOrMixedEdits: problems.length,
    peakRssMiB: Math.round(peakKiB / 102.4) / 10,
    p50Ms: per(50),
    p99Ms: per(99),
    firstErrors: [...o.errors.slice(0, 3), ...problems.slice(0, 3)],
  };
}

try {
  const results = [await overHttp(), await overStdio()];
  console.log(`${C} clients × ${N} calls, one server process each (Node ${process.version})\n`);
  console.log(
    'transport  calls  errors  retries  lost/mixed  peak RSS  p50 all  p99 all  p50/p99 read  grep  edit own  edit shared',
  );
  for (const r of results) {
    const pp = (k: string) => `${r.p50Ms[k]}/${r.p99Ms[k]}`;
    console.log(
      `${r.transport.padEnd(9)}  ${String(r.calls).padStart(5)}  ${String(r.errors).padStart(6)}  ${String(r.staleRetries).padStart(7)}  ${String(r.lostOrMixedEdits).padStart(10)}  ${`${r.peakRssMiB} MiB`.padStart(8)}  ${String(r.p50Ms.all).padStart(7)}  ${String(r.p99Ms.all).padStart(7)}  ${pp('read_file')}  ${pp('grep')}  ${pp('edit_own')}  ${pp('edit_shared')}`,
    );
  }
  console.log(`\n${JSON.stringify(results, null, 2)}`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
