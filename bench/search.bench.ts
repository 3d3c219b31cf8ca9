/**
 * The search benchmark: MewCode's grep and glob side by side with ripgrep, fd, GNU grep, git grep,
 * find, the JS glob libraries and the seed's naive grep, on one tree, in one run. Contenders are
 * interleaved over several repetitions; medians and ratios are reported; every result set is compared
 * with the reference (ripgrep for grep, fd for glob) and a mismatch is flagged, never silently timed.
 * Progress on stderr; a table on stdout; JSON and an SVG chart under .bench/.
 *
 * Usage: npm run bench -- [path] [--quick] [--reps N] [--files N] [--workers N] [--out DIR]
 *        npm run bench -- --edits [--seed N]   (the edit matcher's corpus, bench/edits/)
 */

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { currentBundle } from '../bin/current_bundle.mjs';
import { createRuntime, type Runtime } from '../lib/runtime/runtime.ts';
import { type BenchCase, type Contender, globContenders, grepContenders, mewcodeWarm, which } from './contenders.ts';
import { generateFixture } from './fixture.ts';
import { formatIndexReport, indexBench } from './index.bench.ts';
import { formatMemory, type MemoryRun, probeMemory } from './memory.bench.ts';
import { oneShotReport } from './oneshot.ts';
import { ensureRealTree } from './real_tree.ts';
import { barChart } from './svg.ts';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const log = (s: string) => process.stderr.write(`${s}\n`);

interface Row {
  contender: string;
  medianMs: number | null;
  samplesMs: number[];
  items: number;
  digest: string;
  agrees: boolean | null;
  note?: string;
}

/** The searches timed, each for every contender (bench/compare.ts times MewCode's against another checkout's). */
export const BENCH_CASES: readonly BenchCase[] = [
  { kind: 'grep', name: 'grep literal TODO', pattern: 'TODO', ignoreCase: false, ignore: true },
  {
    kind: 'grep',
    name: 'grep regex function\\s+\\w+Handler',
    pattern: 'function\\s+\\w+Handler',
    ignoreCase: false,
    ignore: true,
  },
  { kind: 'grep', name: 'grep -i error', pattern: 'error', ignoreCase: true, ignore: true },
  { kind: 'grep', name: 'grep literal TODO, no ignore', pattern: 'TODO', ignoreCase: false, ignore: false },
  {
    kind: 'grep',
    name: 'grep regex function\\s+\\w+Handler, no ignore',
    pattern: 'function\\s+\\w+Handler',
    ignoreCase: false,
    ignore: false,
  },
  { kind: 'grep', name: 'grep -i error, no ignore', pattern: 'error', ignoreCase: true, ignore: false },
  { kind: 'glob', name: 'glob **/*.ts', pattern: '**/*.ts', namePattern: '*.ts', ignore: true },
  { kind: 'glob', name: 'glob **/*.{js,ts}', pattern: '**/*.{js,ts}', namePattern: '*.{js,ts}', ignore: true },
  { kind: 'glob', name: 'glob **/*.ts, no ignore', pattern: '**/*.ts', namePattern: '*.ts', ignore: false },
  {
    kind: 'glob',
    name: 'glob **/*.{js,ts}, no ignore',
    pattern: '**/*.{js,ts}',
    namePattern: '*.{js,ts}',
    ignore: false,
  },
];

export async function runBench(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      quick: { type: 'boolean' },
      reps: { type: 'string' },
      files: { type: 'string' },
      workers: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const quick = values.quick ?? false;
  const reps = Number(values.reps ?? (quick ? 2 : 5));
  const files = Number(values.files ?? (quick ? 3000 : 100_000));
  const workers = Number(values.workers ?? availableParallelism());
  const outDir = path.resolve(values.out ?? path.join(repo, '.bench'));
  mkdirSync(outDir, { recursive: true });
  const root = positionals[0] ? path.resolve(positionals[0]) : ensureTree(outDir, files, quick);

  const warmN = open(root, workers);
  const warm1 = open(root, 1);
  const cases = BENCH_CASES;
  const results: { case: string; rows: Row[] }[] = [];
  for (const c of cases) {
    const external = c.kind === 'grep' ? grepContenders(c) : await globContenders(c);
    const contenders = [
      mewcodeWarm(`mewcode warm (${workers} workers)`, warmN, c),
      mewcodeWarm('mewcode warm (1 worker)', warm1, c),
      ...external,
    ];
    log(`● ${c.name}: ${contenders.filter((x) => !x.missing).length} contenders × ${reps}`);
    results.push({ case: c.name, rows: await measure(root, contenders, reps, c.kind === 'grep' ? 2 : 2) });
  }
  const overhead = await dispatchOverhead(root, workers, quick ? 50 : 200);
  const rss = peakRss(root, workers);
  // RSS per phase on a real-shaped tree (bench/memory.bench.ts), for the built library only.
  const memory = quick ? undefined : realTreeMemory(outDir, workers);
  const index = await indexBench(root, workers, reps);
  // Whole programs per search (bench/oneshot.ts): a 10k-file tree beside this one.
  const oneShot = quick ? undefined : oneShotReport(root, ensureTree(outDir, 10_000, false), reps, log);
  await warmN.close();
  await warm1.close();

  const report = {
    date: new Date().toISOString(),
    root,
    files: countFiles(root),
    workers,
    reps,
    node: process.version,
    results,
    overhead,
    rss,
    index,
    memory,
  };
  writeFileSync(path.join(outDir, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(
    path.join(outDir, 'results.svg'),
    barChart(
      `MewCode search benchmark — median ms per call, ${report.files} files, ${workers} workers`,
      results.map((r) => ({
        name: r.case,
        bars: r.rows
          .filter((x) => x.medianMs !== null)
          .map((x) => ({ label: x.contender, ms: x.medianMs as number, ours: x.contender.startsWith('mewcode') })),
      })),
    ),
  );
  process.stdout.write(
    formatReport(report) + formatIndexReport(index) + (oneShot ?? '') + (memory ? formatMemory(memory) : ''),
  );
  log(`results: ${path.join(outDir, 'results.json')}, chart: ${path.join(outDir, 'results.svg')}`);
  const mismatches = results.flatMap((r) =>
    r.rows.filter((x) => x.agrees === false && x.contender.startsWith('mewcode')),
  );
  return mismatches.length > 0 ? 1 : 0;
}

/** The memory benchmark's runs (index off, then built), when dist/ is current; undefined otherwise. */
function realTreeMemory(outDir: string, workers: number): MemoryRun[] | undefined {
  if (currentBundle(repo) === undefined) {
    log('memory on the real-shaped tree: skipped (dist/ is not current: npm run build)');
    return undefined;
  }
  const { root } = ensureRealTree(outDir);
  log(`● memory on the real-shaped tree ${root}`);
  return (['off', 'build'] as const).map((index) => ({
    side: 'this',
    index,
    phases: probeMemory(repo, root, { workers, index }),
  }));
}

function open(root: string, workers: number): Runtime {
  // The unindexed rows: the index has rows of its own (bench/index.bench.ts).
  const made = createRuntime({ root, workers, readTimeoutMs: 300_000, index: 'off' });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}

function ensureTree(outDir: string, files: number, quick: boolean): string {
  const dir = path.join(outDir, `tree-${files}${quick ? '-quick' : ''}`);
  const marker = path.join(dir, '.bench-complete');
  if (!existsSync(marker)) {
    log(`generating a ${files}-file tree in ${dir} …`);
    const t = Date.now();
    const summary = generateFixture(dir, { files, seed: 42, big: !quick });
    // A git repository, so fd and git grep apply the .gitignore files as rg and MewCode do.
    if (which('git')) execFileSync('git', ['init', '-q'], { cwd: dir });
    writeFileSync(marker, JSON.stringify(summary));
    log(
      `  ${summary.files} files, ${(summary.bytes / 1e6).toFixed(1)} MB in ${((Date.now() - t) / 1000).toFixed(1)} s`,
    );
  }
  return dir;
}

/** The row of a contender that produced nothing: not installed, or failed on its first run. */
function noResult(contender: string, note: string): Row {
  return { contender, medianMs: null, samplesMs: [], items: 0, digest: '', agrees: null, note };
}

async function measure(root: string, contenders: Contender[], reps: number, warmups: number): Promise<Row[]> {
  const live = contenders.filter((c) => !c.missing);
  const rows = new Map<string, Row>();
  for (const c of contenders) {
    if (c.missing) rows.set(c.name, noResult(c.name, c.missing));
  }
  // First runs: the result sets (and warm-up: page cache, JIT, worker start).
  for (const c of live) {
    try {
      let items: string[] = [];
      for (let i = 0; i < warmups; i++) items = await c.run(root);
      const sorted = [...items].sort();
      rows.set(c.name, {
        contender: c.name,
        medianMs: null,
        samplesMs: [],
        items: sorted.length,
        digest: createHash('sha256').update(sorted.join('\n')).digest('hex').slice(0, 12),
        agrees: null,
      });
    } catch (e) {
      rows.set(c.name, noResult(c.name, `failed: ${(e as Error).message.slice(0, 80)}`));
    }
  }
  const ok = live.filter((c) => !rows.get(c.name)?.note);
  // Interleaved repetitions, rotating the order so no contender always runs right after another.
  for (let r = 0; r < reps; r++) {
    for (let i = 0; i < ok.length; i++) {
      const c = ok[(i + r) % ok.length] as Contender;
      const t = process.hrtime.bigint();
      await c.run(root);
      (rows.get(c.name) as Row).samplesMs.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  const ref =
    [...rows.values()].find((x) => /^(rg |fd|fdfind)/.test(x.contender) && x.digest) ??
    [...rows.values()].find((x) => x.digest);
  for (const row of rows.values()) {
    if (row.samplesMs.length) row.medianMs = median(row.samplesMs);
    if (row.digest && ref) row.agrees = row.digest === ref.digest;
  }
  return contenders.map((c) => rows.get(c.name) as Row);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** Per-call cost of the read lane: a tiny read_file through the pool vs inline. */
async function dispatchOverhead(root: string, workers: number, calls: number) {
  const file = existsSync(path.join(root, 'README.md')) ? 'README.md' : '.';
  const out: Record<string, number> = {};
  for (const [label, w] of [
    ['pool', workers],
    ['inline', 0],
  ] as const) {
    const rt = open(root, w);
    await rt.call('read_file', { file_path: file, limit: 5 });
    const samples: number[] = [];
    for (let i = 0; i < calls; i++) {
      const t = process.hrtime.bigint();
      await rt.call('read_file', { file_path: file, limit: 5 });
      samples.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    out[`read_file ${label} (ms/call)`] = median(samples);
    await rt.close();
  }
  return out;
}

function peakRss(root: string, workers: number) {
  // What an agent asks: content with the default head limit, and whole-tree counts, node_modules included.
  const inputs = [
    { pattern: 'TODO' },
    { pattern: 'function\\s+\\w+Handler', include_ignored: true },
    { pattern: 'TODO', output_mode: 'count', head_limit: 0, include_ignored: true },
    {
      pattern: 'error',
      case_insensitive: true,
      output_mode: 'files_with_matches',
      head_limit: 0,
      include_ignored: true,
    },
  ];
  // The built library when dist/ is current: tsx in the process would add its own ~35 MiB to the main
  // thread and its loader to every worker, which is not MewCode's memory.
  const bundled = currentBundle(repo) !== undefined;
  const probe = spawnSync(
    process.execPath,
    [
      '--import',
      import.meta.resolve('tsx'),
      path.join(repo, 'bench/rss_probe.ts'),
      root,
      String(workers),
      JSON.stringify(inputs),
      ...(bundled ? ['--bundle', repo] : []),
    ],
    { encoding: 'utf8' },
  );
  const probed = probe.status === 0 ? (JSON.parse(probe.stdout) as { maxRssKiB: number; afterMiB: number[] }) : null;
  const ours = probed ? probed.maxRssKiB / 1024 : null;
  let rg: number | null = null;
  const rgBin = which('rg');
  if (rgBin && existsSync('/usr/bin/time')) {
    const t = spawnSync('/usr/bin/time', ['-f', '%M', rgBin, '-c', '-uu', 'TODO', '.'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'], // rg's output is large; only time's line on stderr matters
    });
    rg = Number(t.stderr.trim().split('\n').at(-1)) / 1024 || null;
  }
  const between = probed ? Math.max(...probed.afterMiB) : null;
  const how = bundled ? 'bundle' : 'sources under tsx';
  return {
    [`mewcode warm grep, ${how} (MiB)`]: ours,
    'mewcode between calls, highest (MiB)': between,
    'rg -uu (MiB)': rg,
  };
}

function countFiles(root: string): number {
  const r = spawnSync('find', ['.', '-path', './.git', '-prune', '-o', '-type', 'f', '-print'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  return r.stdout.split('\n').filter(Boolean).length;
}

function formatReport(report: {
  files: number;
  workers: number;
  reps: number;
  results: { case: string; rows: Row[] }[];
  overhead: Record<string, number>;
  rss: Record<string, number | null>;
}): string {
  const out: string[] = [
    `MewCode search benchmark: ${report.files} files, ${report.workers} workers, median of ${report.reps}`,
    '',
  ];
  for (const r of report.results) {
    const ours = r.rows[0]?.medianMs ?? null;
    out.push(`${r.case}`);
    out.push(
      `  ${'contender'.padEnd(40)} ${'median'.padStart(10)} ${'vs warm'.padStart(8)} ${'items'.padStart(7)}  same result`,
    );
    for (const row of r.rows) {
      const ms = row.medianMs === null ? '—' : `${row.medianMs.toFixed(1)} ms`;
      const ratio = row.medianMs !== null && ours ? `${(row.medianMs / ours).toFixed(2)}×` : '';
      const same = row.note ?? (row.agrees === null ? '' : row.agrees ? 'yes' : `NO (digest ${row.digest})`);
      out.push(
        `  ${row.contender.padEnd(40)} ${ms.padStart(10)} ${ratio.padStart(8)} ${String(row.items).padStart(7)}  ${same}`,
      );
    }
    out.push('');
  }
  const speedups = report.results
    .filter((r) => r.rows[0]?.medianMs && r.rows[1]?.medianMs)
    .map(
      (r) =>
        `  ${r.case.padEnd(48)} ${((r.rows[1]?.medianMs as number) / (r.rows[0]?.medianMs as number)).toFixed(2)}×`,
    );
  out.push(`pool speed-up, ${report.workers} workers over 1:`, ...speedups, '');
  out.push(
    'per-call dispatch overhead:',
    ...Object.entries(report.overhead).map(([k, v]) => `  ${k.padEnd(48)} ${v.toFixed(3)}`),
    '',
  );
  out.push(
    'peak RSS:',
    ...Object.entries(report.rss).map(([k, v]) => `  ${k.padEnd(48)} ${v === null ? '—' : v.toFixed(1)}`),
    '',
  );
  return `${out.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // --edits: the edit-matcher corpus (bench/edits/run.ts) instead of the search benchmark.
  const main = process.argv.includes('--edits') ? (await import('./edits/run.ts')).runEditBench : runBench;
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`bench failed: ${(e as Error).stack}\n`);
      process.exitCode = 2;
    },
  );
}
