/**
 * The memory benchmark on a real-shaped tree (bench/real_tree.ts, 100k+ files of real packages): a
 * warm runtime's RSS per call and per phase (first calls, the index build, serving, idle after the
 * burst, serving after idle) with the index off, built, and loaded by a runtime started after the
 * build (a restarted MCP server: the cache the build left), each in its own child process (bench/memory_probe.ts) on
 * the built library (dist/, `npm run build`) under plain node. With --baseline DIR, another
 * checkout's build (say, main exported with `git archive` and built) runs alternately with this
 * one, round by round, so a busy machine weighs on both alike. With --heaps every thread reports its
 * V8 heap at each phase's end (bench/thread_heaps.cjs); the workers then wait for tasks with
 * Atomics.waitAsync so an idle one can answer (PISCINA_ENABLE_ASYNC_ATOMICS), which is not how they
 * run otherwise. Never a threshold: figures only.
 *
 * With --malloc-tuned, this checkout also runs with glibc's allocator tuned (GLIBC_TUNED), alternating;
 * with --young-capped, with V8's young generation capped (YOUNG_CAPPED); with both, also with both.
 *
 * Usage: node --import tsx bench/memory.bench.ts [tree] [--workers N] [--rounds N] [--baseline DIR] [--heaps] [--idle-ms N] [--malloc-tuned] [--young-capped]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureRealTree } from './real_tree.ts';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** What an agent asks of a tree it explores: literal, -i, regex and context greps, and globs. */
export const AGENT_CALLS = [
  { tool: 'grep', input: { pattern: 'TODO' } },
  { tool: 'grep', input: { pattern: 'deprecated', case_insensitive: true, output_mode: 'files_with_matches' } },
  { tool: 'grep', input: { pattern: 'function\\s+\\w+Error\\(', output_mode: 'count' } },
  { tool: 'grep', input: { pattern: 'new Worker\\(', context: 3 } },
  { tool: 'glob', input: { pattern: '**/*.ts' } },
  { tool: 'grep', input: { pattern: 'resourceLimits', output_mode: 'files_with_matches' } },
  { tool: 'glob', input: { pattern: '**/package.json' } },
  { tool: 'grep', input: { pattern: 'import .* from', glob: '*.ts', output_mode: 'count', head_limit: 0 } },
];

/** One thread's V8 heap at a phase's end (bench/thread_heaps.cjs), MiB. */
interface ThreadHeap {
  threadId: number;
  main: boolean;
  heapTotal: number;
  heapUsed: number;
  newSpace: number;
  external: number;
  arrayBuffers: number;
}
interface Phase {
  peakMiB: number;
  ms: number;
  at: { rssMiB: number; heapTrims?: number; heapTrimMs?: number; threads?: ThreadHeap[] };
  figures: { afterMs?: number; rssMiB?: number }[];
}
export interface MemoryRun {
  side: string;
  index: IndexUse;
  phases: Record<string, Phase>;
}

type IndexUse = 'off' | 'build' | 'loaded';

/**
 * One probe process: `checkout`'s bundle, the index off, built into `cache`, or loaded from it (a
 * fresh cache directory, removed after, when none is given).
 */
export function probeMemory(
  checkout: string,
  tree: string,
  o: {
    workers: number;
    index: IndexUse;
    cache?: string;
    heaps?: boolean;
    idleMs?: number;
    env?: Record<string, string>;
    nodeFlags?: readonly string[];
  },
): MemoryRun['phases'] {
  const cache = o.cache ?? mkdtempSync(path.join(tmpdir(), 'mewcode-memory-cache-'));
  try {
    const flags = [
      ...(o.nodeFlags ?? []),
      ...(o.heaps ? ['--require', path.join(repo, 'bench/thread_heaps.cjs')] : []),
    ].join(' ');
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        import.meta.resolve('tsx'),
        path.join(repo, 'bench/memory_probe.ts'),
        tree,
        String(o.workers),
        JSON.stringify(AGENT_CALLS),
        ...['--index', o.index, '--cache', cache, '--bundle', checkout, '--idle-ms', String(o.idleMs ?? 8000)],
        ...(flags ? ['--node-flags', flags] : []),
      ],
      {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
        env: { ...process.env, ...o.env, ...(o.heaps ? { PISCINA_ENABLE_ASYNC_ATOMICS: '1' } : {}) },
      },
    );
    if (r.status !== 0) throw new Error(`memory probe failed: ${r.stderr}`);
    return (JSON.parse(r.stdout) as { phases: MemoryRun['phases'] }).phases;
  } finally {
    if (!o.cache) rmSync(cache, { recursive: true, force: true });
  }
}

/**
 * glibc's allocator told to serve every allocation of 128 KiB or more with its own mapping, returned
 * on free, and to share two arenas among all threads: left to itself, glibc raises that threshold to
 * the largest block freed so far (up to 32 MiB), so the index build's and the searches' large buffers
 * come from per-thread arenas that fragment and are never given back. Read at process start only.
 */
export const GLIBC_TUNED = {
  GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072:glibc.malloc.arena_max=2',
};

/**
 * V8's young generation capped at start: each semi-space at most 2 MiB instead of growing to 16 (a
 * node flag, which NODE_OPTIONS also carries). A runtime now holds it at its starting size itself
 * (lib/core/heap_hold.ts); the flag also caps the workers' and what runs before a runtime.
 */
export const YOUNG_CAPPED = ['--max-semi-space-size=2'];

/**
 * Per side and index use: each phase's peak, the RSS at the end of serving and after idling, and the
 * peak of the calls made again from idle.
 */
export function formatMemory(runs: readonly MemoryRun[]): string {
  const rows = runs.map((r) => {
    const p = r.phases;
    const trims = p.idle?.at.heapTrims ? ` (${p.idle.at.heapTrims} trims, last ${p.idle.at.heapTrimMs} ms)` : '';
    const idle = (p.idle?.figures ?? []).map((f) => `${f.afterMs}ms ${f.rssMiB}`).join(', ') + trims;
    const again = p['after idle'];
    return `| ${r.side} | ${r.index} | ${p.first?.peakMiB} | ${p.building?.peakMiB ?? '—'} | ${p.serving?.peakMiB} | ${p.serving?.at.rssMiB} | ${p.first?.ms} | ${p.serving?.ms} | ${idle} | ${again?.peakMiB ?? '—'} | ${again?.ms ?? '—'} |`;
  });
  return [
    '| checkout | index | peak, first calls | peak, building (loaded: checking) | peak, serving | after serving | first calls ms | serving ms | idle after the burst (RSS MiB) | peak, calls after idle | their ms |',
    '|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|',
    ...rows,
    '',
  ].join('\n');
}

/**
 * With --heaps: each thread's V8 heap at each phase's end — total (of it the young generation) and
 * used, and the memory outside it (external; of it ArrayBuffers). The main thread first, then the
 * pool's workers alive then.
 */
export function formatHeaps(runs: readonly MemoryRun[]): string {
  const rows: string[] = [];
  for (const r of runs)
    for (const [name, p] of Object.entries(r.phases)) {
      const threads = [...(p.at.threads ?? [])].sort(
        (a, b) => Number(b.main) - Number(a.main) || a.threadId - b.threadId,
      );
      const cells = threads.map(
        (t) =>
          `${t.main ? 'main' : `worker ${t.threadId}`}: ${t.heapTotal} (young ${t.newSpace}), used ${t.heapUsed}; external ${t.external} (buffers ${t.arrayBuffers})`,
      );
      if (cells.length) rows.push(`| ${r.side} | ${r.index} | ${name} | ${p.at.rssMiB} | ${cells.join('<br>')} |`);
    }
  if (!rows.length) return '';
  return [
    '| checkout | index | phase end | RSS | each thread: V8 heap (young), used; outside the heap (MiB) |',
    '|---|---|---|---:|---|',
    ...rows,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      workers: { type: 'string' },
      rounds: { type: 'string' },
      baseline: { type: 'string' },
      heaps: { type: 'boolean' },
      'idle-ms': { type: 'string' },
      'malloc-tuned': { type: 'boolean' },
      'young-capped': { type: 'boolean' },
    },
  });
  const tree = positionals[0] ?? ensureRealTree(path.join(repo, '.bench')).root;
  const sides: { side: string; dir: string; env?: Record<string, string>; nodeFlags?: readonly string[] }[] = [
    { side: 'this', dir: repo },
  ];
  if (values.baseline) sides.push({ side: 'baseline', dir: path.resolve(values.baseline) });
  if (values['malloc-tuned']) sides.push({ side: 'this, glibc tuned', dir: repo, env: GLIBC_TUNED });
  if (values['young-capped']) sides.push({ side: 'this, young capped', dir: repo, nodeFlags: YOUNG_CAPPED });
  if (values['malloc-tuned'] && values['young-capped'])
    sides.push({ side: 'this, both', dir: repo, env: GLIBC_TUNED, nodeFlags: YOUNG_CAPPED });
  const runs: MemoryRun[] = [];
  const rounds = Number(values.rounds ?? 1);
  for (let round = 0; round < rounds; round++)
    for (const index of ['off', 'build'] as const)
      for (const s of round % 2 === 0 ? sides : [...sides].reverse()) {
        const o = {
          workers: Number(values.workers ?? 2),
          heaps: values.heaps ?? false,
          idleMs: Number(values['idle-ms'] ?? 8000),
          ...(s.env ? { env: s.env } : {}),
          ...(s.nodeFlags ? { nodeFlags: s.nodeFlags } : {}),
        };
        // A built index stays in its cache for the next process, which loads it as a restarted server would.
        const cache = mkdtempSync(path.join(tmpdir(), 'mewcode-memory-cache-'));
        try {
          for (const use of index === 'off' ? (['off'] as const) : (['build', 'loaded'] as const)) {
            process.stderr.write(`round ${round + 1}: ${s.side}, index ${use} …\n`);
            runs.push({ side: s.side, index: use, phases: probeMemory(s.dir, tree, { ...o, index: use, cache }) });
          }
        } finally {
          rmSync(cache, { recursive: true, force: true });
        }
      }
  process.stdout.write(formatMemory(runs));
  if (values.heaps) process.stdout.write(`\n${formatHeaps(runs) || 'No thread answered with its heap.\n'}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
