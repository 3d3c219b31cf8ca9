/**
 * The index rows of the benchmark: MewCode warm with its n-gram index, warm without it, and ripgrep,
 * on selective and common searches, interleaved (order rotating), medians and ratios; every indexed
 * answer is compared with the unindexed one and ripgrep's counts. Also the build (time against one
 * unindexed full search, size against the text it covers, peak RSS), serving RSS, the cost of the
 * write lane's update, and an external change found by the next search. Indexes go to a temporary
 * cache directory.
 *
 * Usage: node --import tsx bench/index.bench.ts [path] [--reps N] [--workers N]
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { currentBundle } from '../bin/current_bundle.mjs';
import { createRuntime, type Runtime } from '../lib/runtime/runtime.ts';
import { type Contender, type GrepCase, grepContenders, mewcodeWarm } from './contenders.ts';
import { spawnPlain } from './plain_child.ts';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const log = (s: string) => process.stderr.write(`${s}\n`);

export const INDEX_CASES: readonly GrepCase[] = [
  { kind: 'grep', name: "selective literal 'ERROR 777'", pattern: 'ERROR 777', ignoreCase: false, ignore: true },
  {
    kind: 'grep',
    name: "selective regex 'ERROR 77\\d'\\)'",
    pattern: "ERROR 77\\d'\\)",
    ignoreCase: false,
    ignore: true,
  },
  { kind: 'grep', name: "selective -i 'error 777'", pattern: 'error 777', ignoreCase: true, ignore: true },
  { kind: 'grep', name: "common token 'TODO'", pattern: 'TODO', ignoreCase: false, ignore: true },
];

export interface IndexReport {
  cases: { case: string; rows: { contender: string; medianMs: number; agrees: boolean }[] }[];
  build: {
    ms: number;
    /** A second build in the same process: workers already started, as in a warm runtime. */
    warmMs: number;
    fullSearchMs: number;
    /**
     * Builds on the warm indexed runtime's started workers, interleaved with unindexed full searches
     * (the selective literal, whose scan reads every file) in one loop: medians of each.
     */
    interleaved: { buildMs: number; fullSearchMs: number; buildCpuMs: number; fullSearchCpuMs: number; reps: number };
    files: number;
    textBytes: number;
    indexBytes: number;
    peakRssMiB: number;
  };
  serving: { peakRssMiB: number; served: number };
  /** What the build and serving probes ran: the bundle under plain node, or the sources under tsx. */
  probeRuns: string;
  writeUpdateMs: number;
  externalChangeFound: boolean;
}

/** Runs of each MewCode contender before timing (besides the one whose answer is kept). */
const WARM_RUNS = 8;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/**
 * One probe process. With a current build (dist/), the bundle under plain node, as an installed
 * MewCode runs; else the sources under tsx, whose loader adds memory to every thread (said in the report).
 */
const bundled = currentBundle(repo) !== undefined;
async function probe(args: string[]): Promise<{ ms: number; rebuildMs?: number; served: number; maxRssKiB: number }> {
  const script = path.join(repo, 'bench/index_probe.ts');
  const r = bundled
    ? await spawnPlain(script, args, { env: { ...process.env, MEWCODE_PROBE_BUNDLE: repo } })
    : spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), script, ...args], {
        encoding: 'utf8',
        maxBuffer: 1 << 24,
      });
  if (r.status !== 0) throw new Error(`index probe failed: ${r.stderr.slice(-500)}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1) as string);
}

export async function indexBench(root: string, workers: number, reps: number): Promise<IndexReport> {
  const cache = mkdtempSync(path.join(tmpdir(), 'mewcode-index-bench-'));
  try {
    log(`● index: build (child process, ${workers} workers)`);
    const built = await probe(['build', root, cache, String(workers)]);
    const indexed = openRuntime(root, workers, cache, 'build');
    const plain = openRuntime(root, workers, cache, 'off');
    await indexed.call('grep', { pattern: 'ERROR 777' }); // loads the index
    const loaded = indexed.searchIndex?.loaded;
    if (!loaded) throw new Error('the index did not load');
    const cases: IndexReport['cases'] = [];
    for (const c of INDEX_CASES) cases.push(await timeCase(c, root, workers, reps, indexed, plain));
    const fullSearchMs = cases[0]?.rows[1]?.medianMs ?? Number.NaN;
    const interleaved = await buildsAgainstScans(root, reps, indexed, plain);
    const { writeUpdateMs, externalChangeFound } = await writeProbes(root, indexed);
    const serving = await serveProbe(root, cache, workers);
    await indexed.close();
    await plain.close();
    return {
      cases,
      build: {
        ms: built.ms,
        warmMs: built.rebuildMs ?? Number.NaN,
        fullSearchMs,
        interleaved,
        files: loaded.rels.length,
        textBytes: loaded.bytes,
        indexBytes: loaded.size,
        peakRssMiB: built.maxRssKiB / 1024,
      },
      serving: { peakRssMiB: serving.maxRssKiB / 1024, served: serving.served },
      probeRuns: bundled ? 'bundle, plain node' : 'sources under tsx: its loader adds memory to every thread',
      writeUpdateMs,
      externalChangeFound,
    };
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

/** A warm runtime on the bench's cache, with its index built ('build') or none ('off'). */
function openRuntime(root: string, workers: number, cache: string, index: 'build' | 'off'): Runtime {
  const made = createRuntime({ root, workers, index, indexCacheDir: cache, home: null, readTimeoutMs: 600_000 });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}

/** One search case: both warm runtimes and ripgrep, warmed up, then timed interleaved (order rotating). */
async function timeCase(
  c: GrepCase,
  root: string,
  workers: number,
  reps: number,
  indexed: Runtime,
  plain: Runtime,
): Promise<IndexReport['cases'][number]> {
  const rg = grepContenders(c).filter((x) => x.name.startsWith('rg ') && !x.missing);
  const list: Contender[] = [
    mewcodeWarm(`mewcode warm, indexed (${workers} workers)`, indexed, c),
    mewcodeWarm(`mewcode warm, unindexed (${workers} workers)`, plain, c),
    ...rg,
  ];
  log(`● index: ${c.name}: ${list.length} contenders × ${reps}`);
  const samples = new Map<string, number[]>(list.map((x) => [x.name, []]));
  const answers = new Map<string, string>();
  for (const x of list) answers.set(x.name, [...(await x.run(root))].sort().join('\n')); // warm-up
  // A warm runtime has made searches of this kind before: V8 compiles the code of a kind of
  // search (a regex's line checks, say) only after it ran several times — the first indexed regex
  // takes 40-55 ms where later ones take 20 (a second regex pattern is at 20 from its first run).
  // Both MewCode runtimes get the same warm-up runs; the first indexed one also taught the index
  // the tree's walk.
  for (let w = 0; w < WARM_RUNS; w++) for (const x of list.slice(0, 2)) await x.run(root);
  for (let r = 0; r < reps; r++) {
    for (let i = 0; i < list.length; i++) {
      const x = list[(i + r) % list.length] as Contender;
      const t = performance.now();
      await x.run(root);
      samples.get(x.name)?.push(performance.now() - t);
    }
  }
  const ref = answers.get(list[1]?.name ?? '');
  return {
    case: c.name,
    rows: list.map((x) => ({
      contender: x.name,
      medianMs: median(samples.get(x.name) ?? []),
      agrees: answers.get(x.name) === ref,
    })),
  };
}

/** Builds against one unindexed full search, alternating which goes first: both on started workers. */
async function buildsAgainstScans(
  root: string,
  reps: number,
  indexed: Runtime,
  plain: Runtime,
): Promise<IndexReport['build']['interleaved']> {
  log(`● index: build vs unindexed full search, interleaved × ${reps}`);
  const scan = mewcodeWarm('unindexed', plain, INDEX_CASES[0] as GrepCase);
  const builds: number[] = [];
  const scans: number[] = [];
  // CPU of all threads (both runtimes' workers, which run one at a time here): far steadier than
  // wall time on a loaded machine.
  const cpu = { build: [] as number[], scan: [] as number[] };
  for (let r = 0; r < reps; r++) {
    for (const which of r % 2 === 0 ? ['scan', 'build'] : ['build', 'scan']) {
      const c = process.cpuUsage();
      const t = performance.now();
      if (which === 'scan') await scan.run(root);
      else if (!(await indexed.searchIndex?.build())?.ok) throw new Error('the rebuild failed');
      (which === 'scan' ? scans : builds).push(performance.now() - t);
      const used = process.cpuUsage(c);
      cpu[which === 'scan' ? 'scan' : 'build'].push((used.user + used.system) / 1000);
    }
  }
  return {
    buildMs: median(builds),
    fullSearchMs: median(scans),
    buildCpuMs: median(cpu.build),
    fullSearchCpuMs: median(cpu.scan),
    reps,
  };
}

/** The write lane's update (its hook, noteWrite) timed, and whether the next search finds an external change. */
async function writeProbes(
  root: string,
  indexed: Runtime,
): Promise<{ writeUpdateMs: number; externalChangeFound: boolean }> {
  const target = path.join(root, 'README.md');
  const before = readFileSync(target);
  const note = indexed.searchIndex;
  let writeUpdateMs = Number.NaN;
  if (note) {
    const t = performance.now();
    for (let i = 0; i < 100; i++) note.noteWrite(target);
    writeUpdateMs = (performance.now() - t) / 100;
  }
  // An external change to one file, searched for at once.
  const token = `zqx${Date.now().toString(36)}marker`;
  appendFileSync(target, `${token}\n`);
  const found = await indexed.call('grep', { pattern: token, output_mode: 'files_with_matches' });
  writeFileSync(target, before);
  return { writeUpdateMs, externalChangeFound: found.content.includes('README.md') };
}

/** Serving in a child process: each case's count search three times, for peak RSS and how many the index served. */
function serveProbe(root: string, cache: string, workers: number): ReturnType<typeof probe> {
  return probe([
    'serve',
    root,
    cache,
    String(workers),
    JSON.stringify(
      INDEX_CASES.flatMap((c) =>
        [1, 2, 3].map(() => ({
          pattern: c.pattern,
          case_insensitive: c.ignoreCase,
          output_mode: 'count',
          head_limit: 0,
        })),
      ),
    ),
  ]);
}

export function formatIndexReport(r: IndexReport): string {
  const out = ['', 'n-gram index (interleaved medians; ratio = contender ÷ indexed)'];
  for (const c of r.cases) {
    out.push(`  ${c.case}`);
    const base = c.rows[0]?.medianMs ?? 1;
    for (const row of c.rows)
      out.push(
        `    ${row.contender.padEnd(40)} ${row.medianMs.toFixed(1).padStart(9)} ms  ${(row.medianMs / base).toFixed(1).padStart(6)}×${row.agrees ? '' : '  (count lines differ from unindexed)'}`,
      );
  }
  const b = r.build;
  const i = b.interleaved;
  out.push(
    `  build on started workers, interleaved with unindexed full searches (${i.reps}×, medians): ${i.buildMs.toFixed(0)} ms = ${(i.buildMs / i.fullSearchMs).toFixed(2)}× one search (${i.fullSearchMs.toFixed(0)} ms); CPU ${i.buildCpuMs.toFixed(0)} ms = ${(i.buildCpuMs / i.fullSearchCpuMs).toFixed(2)}× (${i.fullSearchCpuMs.toFixed(0)} ms)`,
    `  build: ${b.ms.toFixed(0)} ms = ${(b.ms / b.fullSearchMs).toFixed(2)}× one unindexed full search (${b.fullSearchMs.toFixed(0)} ms), ` +
      `${b.warmMs.toFixed(0)} ms = ${(b.warmMs / b.fullSearchMs).toFixed(2)}× on started workers; ` +
      `${b.files} files, index ${(b.indexBytes / 1e6).toFixed(1)} MB = ${((100 * b.indexBytes) / b.textBytes).toFixed(1)}% of ${(b.textBytes / 1e6).toFixed(1)} MB of text; peak RSS building ${b.peakRssMiB.toFixed(0)} MiB`,
    `  serving: peak RSS ${r.serving.peakRssMiB.toFixed(0)} MiB (${r.serving.served} of ${INDEX_CASES.length * 3} searches served by the index)`,
    `  (build and serving probes: ${r.probeRuns})`,
    `  write-lane update: ${r.writeUpdateMs.toFixed(3)} ms; external change found by the next search: ${r.externalChangeFound ? 'yes' : 'NO'}`,
  );
  return `${out.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { reps: { type: 'string' }, workers: { type: 'string' } },
  });
  const root = path.resolve(positionals[0] ?? path.join(repo, '.bench', 'tree-100000'));
  const report = await indexBench(root, Number(values.workers ?? availableParallelism()), Number(values.reps ?? 5));
  process.stdout.write(formatIndexReport(report));
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
