/**
 * What the audit trail (docs/observability.md) adds to a call.
 *
 *   node --import tsx bench/audit_cost.ts [--n 2000]
 *
 * Two warm library runtimes (`workers: 0`, journal and index off) on one temp root: one writing the
 * audit log to a temp file, one without sinks, each on its own copy of the files. Interleaved call by call, the order alternating (so
 * machine load weighs on both alike): N read_file calls of a small file, N grep calls, and N/10
 * write_file calls creating a file of 64 KiB (whose arguments are hashed). Prints the median per call with and without,
 * the median of the paired differences, and the log's bytes per call. Figures only: no threshold.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openAuditLog } from '../lib/audit/log_file.ts';
import { createRuntime, type Runtime } from '../lib/runtime/runtime.ts';
import { median } from './oneshot.ts';

const { values } = parseArgs({ options: { n: { type: 'string' } } });
const N = Number(values.n ?? 2000);
const base = mkdtempSync(path.join(tmpdir(), 'mewcode-audit-bench-'));
const root = path.join(base, 'root');
const logFile = path.join(base, 'log', 'audit.jsonl');
const log = openAuditLog(logFile, { maxBytes: 1 << 30 });
if (!log.ok) throw new Error(log.error);

function runtime(audited: boolean): Runtime {
  const made = createRuntime({
    root: path.join(root, audited ? 'on' : 'off'),
    home: null,
    workers: 0,
    journal: false,
    index: 'off',
    allowWrite: true,
    ...(audited ? { audit: log.ok ? log.value.sink : [] } : {}),
  });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}

async function timed(rt: Runtime, name: string, input: unknown): Promise<number> {
  const t = performance.now();
  const r = await rt.call(name, input);
  if (r.isError) throw new Error(`${name}: ${r.content}`);
  return performance.now() - t;
}

async function compare(label: string, n: number, call: (i: number) => [string, unknown]) {
  const on: number[] = [];
  const off: number[] = [];
  const diff: number[] = [];
  for (let i = 0; i < n; i++) {
    const [name, input] = call(i);
    const first = i % 2 === 0;
    const a = await timed(first ? audited : plain, name, input);
    const b = await timed(first ? plain : audited, name, input);
    const [withLog, without] = first ? [a, b] : [b, a];
    on.push(withLog);
    off.push(without);
    diff.push(withLog - without);
  }
  const f = (x: number) => `${(x * 1000).toFixed(0)} µs`;
  console.log(
    `${label.padEnd(22)} off ${f(median(off)).padStart(8)}  on ${f(median(on)).padStart(8)}  paired difference ${f(median(diff)).padStart(7)}`,
  );
}

mkdirTree();
const audited = runtime(true);
const plain = runtime(false);
try {
  const before = statSync(logFile).size;
  await compare('read_file (1 KiB)', N, () => ['read_file', { file_path: 'small.txt' }]);
  await compare('grep (one file)', N, () => ['grep', { pattern: 'needle', path: 'small.txt' }]);
  const big = 'x'.repeat(64 * 1024);
  await compare('write_file (64 KiB)', Math.ceil(N / 10), (i) => [
    'write_file',
    { file_path: 'out.txt', content: `${i}${big}` },
  ]);
  const calls = N * 2 + Math.ceil(N / 10);
  console.log(`log: ${((statSync(logFile).size - before) / calls).toFixed(0)} bytes per call`);
} finally {
  await audited.close();
  await plain.close();
  log.value.close();
  rmSync(base, { recursive: true, force: true });
}

function mkdirTree() {
  for (const side of ['on', 'off']) {
    mkdirSync(path.join(root, side), { recursive: true });
    writeFileSync(path.join(root, side, 'small.txt'), `${'some text\n'.repeat(100)}needle\n`);
  }
}
