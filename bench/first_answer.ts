/**
 * The first answer of a runtime: a warm runtime (index 'build', watches) started fresh on a root whose
 * index is already on disk, timed on its first search of a selective literal, against a runtime
 * without an index on the same search warm (its fourth) and cold (its first), and ripgrep. Each run
 * is a new process (bench/first_answer_probe.ts), the three interleaved with their order rotating;
 * medians and ratios. Also when the indexed runtime's background work ended (`settled`, from its
 * first search's start) and how its later searches were served. Every answer is compared with
 * ripgrep's counts. The index goes to a temporary cache directory, removed at the end. `--against`
 * adds another checkout's indexed runtime (say the commit before, exported with `git archive`,
 * node_modules linked in, its dist/ built) to the rotation, on the same index file.
 *
 * Usage: node --import tsx bench/first_answer.ts [root] [--reps N] [--workers N] [--pattern P] [--against DIR]
 * (root: default .bench/tree-100000, which `npm run bench` generates; any tree will do.)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { currentBundle } from '../bin/current_bundle.mjs';
import { createRuntime } from '../lib/runtime/runtime.ts';
import { which } from './contenders.ts';
import { childCpuMs } from './oneshot.ts';
import { spawnPlain } from './plain_child.ts';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const log = (s: string) => process.stderr.write(`${s}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

interface ProbeRun {
  searches: { ms: number; cpuMs: number; index: string }[];
  settledMs: number;
  lines: string[];
}

/**
 * One probe process running `checkout`'s MewCode: its bundle under plain node when its dist/ is
 * current (as an installed MewCode runs), else its sources under tsx.
 */
const bundled = (checkout: string) => currentBundle(checkout) !== undefined;
async function probe(args: string[], checkout = repo): Promise<ProbeRun> {
  const script = path.join(repo, 'bench/first_answer_probe.ts');
  const r = bundled(checkout)
    ? await spawnPlain(script, args, { env: { ...process.env, MEWCODE_PROBE_BUNDLE: checkout } })
    : spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), script, ...args], {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
        env: { ...process.env, MEWCODE_PROBE_SOURCES: checkout },
      });
  if (r.status !== 0) throw new Error(`first-answer probe failed: ${r.stderr.slice(-800)}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1) as string);
}

interface RgRun {
  ms: number;
  cpuMs: number;
  lines: string[];
}

/** ripgrep's counts, as MewCode prints them (ignore files applied with or without a git repository). */
function rgRun(root: string, pattern: string): RgRun {
  const c = childCpuMs();
  const t = performance.now();
  const r = spawnSync(which('rg'), ['--no-config', '--no-require-git', '-c', pattern, '.'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const ms = performance.now() - t;
  const cpuMs = childCpuMs() - c;
  if (r.status !== 0 && r.status !== 1) throw new Error(`rg failed: ${r.stderr}`);
  // Given '.' (else a piped stdin is what it searches), it prints './path:N'.
  return { ms, cpuMs, lines: r.stdout.split('\n').flatMap((l) => (l === '' ? [] : [l.replace(/^\.\//, '')])) };
}

/**
 * Builds the index, then searches once as a runtime serving the tree would: that walk is kept beside
 * the index (lib/search/index/walk_record.ts) for the runtimes that load it.
 */
async function buildIndex(root: string, cacheDir: string, workers: number): Promise<number> {
  const made = createRuntime({ root, workers, index: 'build', indexCacheDir: cacheDir, home: null });
  if (!made.ok) throw new Error(made.error);
  try {
    const built = await made.value.searchIndex?.build();
    if (!built?.ok) throw new Error(`the build failed: ${built ? built.message : 'no index'}`);
    const kept = await made.value.call('grep', { pattern: 'a walk to keep', output_mode: 'count' });
    log(`● first answer: the builder's search after the build: ${String(kept.meta?.index)}`);
    return built.index.rels.length;
  } finally {
    await made.value.close();
  }
}

interface Samples {
  indexed: ProbeRun[];
  unindexed: ProbeRun[];
  rg: RgRun[];
  /** The other checkout's indexed runtime (`--against`). */
  against: ProbeRun[];
}

interface Setup {
  root: string;
  cacheDir: string;
  workers: number;
  pattern: string;
  against: string | undefined;
}

async function sample(o: Setup, reps: number): Promise<Samples> {
  const s: Samples = { indexed: [], unindexed: [], rg: [], against: [] };
  const args = (mode: string) => [mode, o.root, o.cacheDir, String(o.workers), o.pattern];
  const runs: (() => Promise<void>)[] = [
    async () => void s.indexed.push(await probe(args('indexed'))),
    async () => void s.unindexed.push(await probe(args('unindexed'))),
    async () => void s.rg.push(rgRun(o.root, o.pattern)),
  ];
  const other = o.against;
  if (other) runs.push(async () => void s.against.push(await probe(args('indexed'), other)));
  for (let r = 0; r < reps; r++) {
    log(`● first answer: round ${r + 1} of ${reps}`);
    for (let i = 0; i < runs.length; i++) await (runs[(i + r) % runs.length] as () => Promise<void>)();
  }
  return s;
}

/** A row's figures: wall and CPU medians (CPU: every thread of the process, or rg and its children). */
interface Figures {
  ms: number;
  cpuMs?: number;
}

const figuresOf = (xs: { ms: number; cpuMs: number }[]): Figures => ({
  ms: median(xs.map((x) => x.ms)),
  cpuMs: median(xs.map((x) => x.cpuMs)),
});

/** The i-th search of each run (the i-th to the last: `to`). */
const searchesAt = (runs: ProbeRun[], i: number, to = i + 1) => runs.flatMap((p) => p.searches.slice(i, to));

function report(s: Samples, files: number, o: Setup): string {
  const sorted = (lines: string[]) => [...lines].sort().join('\n');
  const want = sorted(s.rg[0]?.lines ?? []);
  const agree = [...s.indexed, ...s.unindexed, ...s.against].every((p) => sorted(p.lines) === want);
  const warm = figuresOf(searchesAt(s.unindexed, 1, 4));
  const rg = figuresOf(s.rg);
  const row = (name: string, f: Figures) => {
    const cpu = f.cpuMs === undefined ? '' : `  CPU ${f.cpuMs.toFixed(0).padStart(6)} ms`;
    return `  ${name.padEnd(66)} ${f.ms.toFixed(0).padStart(7)} ms  ${(f.ms / warm.ms).toFixed(2).padStart(6)}× warm unindexed  ${(f.ms / rg.ms).toFixed(2).padStart(6)}× rg${cpu}`;
  };
  const how = (runs: ProbeRun[]) => [...new Set(runs.map((p) => p.searches.map((x) => x.index).join(' → ')))];
  const indexedRows = (runs: ProbeRun[], of: string) => [
    row(`indexed${of}, first search of a fresh runtime`, figuresOf(searchesAt(runs, 0))),
    row(`indexed${of}, background work done (from the first)`, { ms: median(runs.map((p) => p.settledMs)) }),
    row(`indexed${of}, its fourth search`, figuresOf(searchesAt(runs, 3))),
  ];
  return [
    `first answer: ${files} indexed files, '${o.pattern}' (${s.rg[0]?.lines.length ?? 0} files match), ${s.rg.length} rounds, medians; answers ${agree ? 'agree with rg' : 'DIFFER from rg'}`,
    ...indexedRows(s.indexed, ''),
    ...(o.against ? indexedRows(s.against, ` (${path.basename(o.against)})`) : []),
    row('unindexed, first search of a fresh runtime', figuresOf(searchesAt(s.unindexed, 0))),
    row('unindexed, warm (second to fourth search)', warm),
    row('rg', rg),
    `  indexed runtime's searches: ${how(s.indexed).join(' | ')}`,
    ...(o.against ? [`  ${path.basename(o.against)}'s: ${how(s.against).join(' | ')}`] : []),
    `  (probes: ${[repo, ...(o.against ? [o.against] : [])].map((c) => `${path.basename(c)}: ${bundled(c) ? 'its bundle under plain node' : 'its sources under tsx'}`).join('; ')})`,
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      reps: { type: 'string' },
      workers: { type: 'string' },
      pattern: { type: 'string' },
      against: { type: 'string' },
    },
  });
  const o: Setup = {
    root: path.resolve(positionals[0] ?? path.join(repo, '.bench', 'tree-100000')),
    cacheDir: mkdtempSync(path.join(tmpdir(), 'mewcode-first-answer-')),
    workers: Number(values.workers ?? 2),
    pattern: values.pattern ?? 'ERROR 777',
    against: values.against && path.resolve(values.against),
  };
  try {
    log(`● first answer: building the index of ${o.root}`);
    const files = await buildIndex(o.root, o.cacheDir, o.workers);
    process.stdout.write(report(await sample(o, Number(values.reps ?? 5)), files, o));
  } finally {
    rmSync(o.cacheDir, { recursive: true, force: true });
  }
}
