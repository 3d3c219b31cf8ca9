/**
 * Before/after: this checkout's warm grep and glob against another checkout's (say, main exported
 * with `git archive`), on the benchmark's cases and tree, in one process. The two are interleaved
 * call by call — the order alternating every repetition — so a machine busy with other work slows
 * both alike; the medians and their ratio (this / other) are printed, and the result sets must agree.
 *
 * Usage: node --import tsx bench/compare.ts <other checkout> [tree] [--reps N] [--workers N]
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { BenchCase } from './contenders.ts';
import { median } from './oneshot.ts';
import { BENCH_CASES } from './search.bench.ts';

interface Side {
  label: string;
  /** The whole answer (a spilled one read back, its spill file removed). */
  call(name: string, input: Record<string, unknown>): Promise<{ content: string; isError: boolean }>;
  close(): Promise<void>;
}

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

async function open(checkout: string, label: string, root: string, workers: number): Promise<Side> {
  const { createRuntime } = (await import(
    path.join(checkout, 'lib/runtime/runtime.ts')
  )) as typeof import('../lib/runtime/runtime.ts');
  const made = createRuntime({ root, workers, readTimeoutMs: 300_000, index: 'off' }); // the searcher, not the index
  if (!made.ok) throw new Error(made.error);
  const rt = made.value;
  const call = async (name: string, input: Record<string, unknown>) => {
    const r = await rt.call(name, input);
    const spill = r.meta?.truncated?.spillPath;
    if (typeof spill !== 'string') return r;
    const content = readFileSync(spill, 'utf8');
    rmSync(spill, { force: true });
    return { content, isError: r.isError };
  };
  return { label, call, close: () => rt.close() };
}

const inputOf = (c: BenchCase) =>
  c.kind === 'grep'
    ? {
        pattern: c.pattern,
        output_mode: 'count',
        head_limit: 0,
        case_insensitive: c.ignoreCase,
        include_ignored: !c.ignore,
      }
    : { pattern: c.pattern, limit: 100_000, include_ignored: !c.ignore };

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { reps: { type: 'string' }, workers: { type: 'string' } },
  });
  const [other, tree = path.join(repo, '.bench/tree-100000')] = positionals;
  if (!other) {
    process.stderr.write('usage: compare.ts <other checkout> [tree] [--reps N] [--workers N]\n');
    return 2;
  }
  const reps = Number(values.reps ?? 7);
  const workers = Number(values.workers ?? availableParallelism());
  // Both sides run with the pool: in a worker each module is loaded from its own checkout.
  const sides = [await open(path.resolve(other), 'other', tree, workers), await open(repo, 'this', tree, workers)];
  process.stdout.write(`${tree}, ${workers} workers, ${reps} interleaved repetitions\n`);
  process.stdout.write(`${'case'.padEnd(48)} ${'other ms'.padStart(9)} ${'this ms'.padStart(9)}  this/other\n`);
  let mismatches = 0;
  const ratios: number[] = [];
  for (const c of BENCH_CASES) {
    const input = inputOf(c);
    const digests = new Set<string>();
    for (const s of sides) {
      const r = await s.call(c.kind, input); // warm-up, and the result set
      if (r.isError) throw new Error(`${s.label}: ${r.content}`);
      digests.add(createHash('sha256').update(r.content).digest('hex'));
    }
    if (digests.size > 1) mismatches++;
    const samples: number[][] = sides.map(() => []);
    for (let r = 0; r < reps; r++) {
      for (let k = 0; k < sides.length; k++) {
        const i = (k + r) % sides.length;
        const t = process.hrtime.bigint();
        await (sides[i] as Side).call(c.kind, input);
        (samples[i] as number[]).push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }
    const [a, b] = samples.map(median) as [number, number];
    ratios.push(b / a);
    const flag = digests.size > 1 ? '  RESULTS DIFFER' : '';
    process.stdout.write(
      `${c.name.padEnd(48)} ${a.toFixed(1).padStart(9)} ${b.toFixed(1).padStart(9)}  ${(b / a).toFixed(3)}${flag}\n`,
    );
  }
  process.stdout.write(`median ratio over the cases: ${median(ratios).toFixed(3)}\n`);
  for (const s of sides) await s.close();
  return mismatches ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`compare failed: ${(e as Error).stack}\n`);
    process.exitCode = 2;
  },
);
