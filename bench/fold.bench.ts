/**
 * Warm case-insensitive grep against ripgrep, literal by literal: rare identifiers, common words,
 * short literals, literals with k/s (which Unicode folding joins to non-ASCII letters) and non-ASCII
 * ones. Each row interleaves this checkout's warm runtime, optionally another checkout's (the before
 * figure), and `rg -c -i`, rotating the order every repetition; medians and ratios to rg are printed
 * for wall time and for CPU time (a warm runtime's whole process, all its worker threads; rg's from
 * /proc/self/stat as a waited-for child): on a loaded machine wall time is mostly waiting for a core.
 * Every result set must equal rg's (a mismatch is flagged, and makes the exit status 1).
 *
 * `--case-sensitive` times the same literals without -i: the floor a folded search can reach.
 *
 * Usage: node --import tsx bench/fold.bench.ts <tree> [--baseline DIR] [--reps N] [--workers N] [--only LIT,…]
 *        [--case-sensitive]
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Runtime } from '../lib/runtime/runtime.ts';
import { which } from './contenders.ts';
import { childCpuMs, median } from './oneshot.ts';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** The literals timed, each with why it is there. */
export const FOLD_LITERALS: readonly { pattern: string; why: string }[] = [
  { pattern: 'printComments', why: 'rare identifier (absent)' },
  { pattern: 'errorResultHandler', why: 'rare identifier (few hits)' },
  { pattern: 'error', why: 'common word' },
  { pattern: 'const', why: 'most common word' },
  { pattern: 'return', why: 'common letters' },
  { pattern: 'task', why: 'common, with k and s' },
  { pattern: 'id', why: 'short, 2 letters' },
  { pattern: 'new', why: 'short, 3 letters' },
  { pattern: 'straße', why: 'non-ASCII' },
  { pattern: 'Ωmega', why: 'non-ASCII first letter' },
  { pattern: 'σίσυφος', why: 'non-ASCII, no ASCII run' },
];

interface Contender {
  label: string;
  run(pattern: string): Promise<string[]>;
  /** CPU milliseconds spent so far by what runs the search. */
  cpu(): number;
  close?(): Promise<void>;
}

async function warm(checkout: string, label: string, root: string, workers: number, ci: boolean): Promise<Contender> {
  const { createRuntime } = (await import(path.join(checkout, 'lib/runtime/runtime.ts'))) as {
    createRuntime: typeof import('../lib/runtime/runtime.ts').createRuntime;
  };
  const made = createRuntime({ root, workers, readTimeoutMs: 300_000, index: 'off' }); // the searcher, not the index
  if (!made.ok) throw new Error(made.error);
  const rt: Runtime = made.value;
  return {
    label,
    cpu: () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    },
    async run(pattern) {
      const r = await rt.call('grep', { pattern, output_mode: 'count', head_limit: 0, case_insensitive: ci });
      if (r.isError) throw new Error(r.content);
      const spill = r.meta?.truncated?.spillPath;
      const text = typeof spill === 'string' ? readFileSync(spill, 'utf8') : r.content;
      if (typeof spill === 'string') rmSync(spill, { force: true });
      return text.split('\n').filter((l) => l !== '' && !l.startsWith('[') && !l.startsWith('No '));
    },
    close: () => rt.close(),
  };
}

function rg(root: string, ci: boolean): Contender {
  const bin = which('rg');
  return {
    label: ci ? 'rg -i' : 'rg',
    cpu: childCpuMs,
    run: (pattern) =>
      new Promise((resolve, reject) => {
        const child = spawn(bin, ['--no-config', '-c', ...(ci ? ['-i'] : []), pattern, '.'], {
          cwd: root,
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        const chunks: Buffer[] = [];
        child.stdout.on('data', (c: Buffer) => chunks.push(c));
        child.on('error', reject);
        child.on('close', (code) =>
          code === 0 || code === 1
            ? resolve(
                Buffer.concat(chunks)
                  .toString('utf8')
                  .split('\n')
                  .filter((l) => l !== '')
                  .map((l) => (l.startsWith('./') ? l.slice(2) : l)),
              )
            : reject(new Error(`rg exited ${code}`)),
        );
      }),
  };
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      baseline: { type: 'string' },
      reps: { type: 'string' },
      workers: { type: 'string' },
      only: { type: 'string' },
      'case-sensitive': { type: 'boolean' },
    },
  });
  const root = path.resolve(positionals[0] ?? path.join(repo, '.bench/tree-100000'));
  const reps = Number(values.reps ?? 5);
  const workers = Number(values.workers ?? availableParallelism());
  const only = values.only?.split(',');
  const ci = !values['case-sensitive'];
  const sides = [await warm(repo, 'this', root, workers, ci)];
  if (values.baseline) sides.push(await warm(path.resolve(values.baseline), 'before', root, workers, ci));
  sides.push(rg(root, ci));
  const load = () => loadavg()[0]?.toFixed(1);
  process.stdout.write(
    `${root}, ${ci ? '-i' : 'case-sensitive'}, ${workers} workers, ${reps} interleaved repetitions, load ${load()} at start\n`,
  );
  const cols = (unit: string) => sides.map((s) => `${s.label} ${unit}`.padStart(13)).join('');
  const ratioHead = values.baseline ? '  this/rg before/rg' : '  this/rg';
  process.stdout.write(`${'literal'.padEnd(44)}${cols('wall')}${ratioHead}${cols('CPU')}${ratioHead}\n`);
  let mismatches = 0;
  for (const lit of FOLD_LITERALS) {
    if (only && !only.includes(lit.pattern)) continue;
    const digests = new Set<string>();
    for (const s of sides) digests.add([...(await s.run(lit.pattern))].sort().join('\n')); // warm-up + answer
    if (digests.size > 1) mismatches++;
    const wall: number[][] = sides.map(() => []);
    const cpu: number[][] = sides.map(() => []);
    for (let r = 0; r < reps; r++) {
      for (let k = 0; k < sides.length; k++) {
        const i = (k + r) % sides.length;
        const side = sides[i] as Contender;
        const c0 = side.cpu();
        const t = process.hrtime.bigint();
        await side.run(lit.pattern);
        (wall[i] as number[]).push(Number(process.hrtime.bigint() - t) / 1e6);
        (cpu[i] as number[]).push(side.cpu() - c0);
      }
    }
    const row = (samples: number[][]) => {
      const med = samples.map(median);
      const ref = med.at(-1) as number;
      const ratios = med.slice(0, -1).map((m, i) => `${(m / ref).toFixed(2)}×`.padStart(i === 0 ? 9 : 10));
      return `${med.map((m) => m.toFixed(0).padStart(13)).join('')}${ratios.join('')}`;
    };
    const flag = digests.size > 1 ? '  RESULTS DIFFER' : '';
    process.stdout.write(`${`${lit.pattern} (${lit.why})`.padEnd(44)}${row(wall)}${row(cpu)}${flag}\n`);
  }
  process.stdout.write(`load ${load()} at end\n`);
  for (const s of sides) await s.close?.();
  return mismatches ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`fold bench failed: ${(e as Error).stack}\n`);
    process.exitCode = 2;
  },
);
