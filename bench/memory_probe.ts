/**
 * Child process of the memory benchmark (bench/memory.bench.ts): one warm runtime, as the agent loop
 * and the MCP server hold it, through phases of agent-style calls, reporting the whole process's RSS
 * (main thread and workers share one) per call and per phase:
 *   first       the calls once, from a cold start (`build`: the first whole-tree search starts a
 *               build in the background, so the later calls run beside it; `loaded`: the index a
 *               runtime before this one left in the cache is loaded and checked in the background);
 *   building    waiting for that build (`build`), or that check (`loaded`), to end;
 *   serving     the calls again, warm (with the index: answered from it);
 *   idle        no calls: RSS sampled for a few seconds after the burst;
 *   after idle  the calls once more: a long-lived server mostly serves from an idle state, its
 *               workers ended and its young generation trimmed.
 * Each call's peak is Linux's high-water mark (VmHWM), reset before it through /proc/self/clear_refs;
 * each phase's, the highest of its calls' and of the mark since the phase's start (until 2026-12-07 it
 * was the mark at the phase's end alone: its last call's peak). At each phase's end it also says where
 * the memory is, when the process runs under `--require bench/thread_heaps.cjs` (each thread's V8 heap), and always: RssAnon
 * and RssFile, open watches, the loaded index's tables. Prints one JSON line; --table adds a table on
 * stderr. With --bundle DIR it re-runs itself as plain JavaScript under plain node on DIR/dist/mewcode.mjs
 * (rss_probe.ts says why).
 * Usage: node --import tsx bench/memory_probe.ts <root> <workers> '<json calls>' [--index off|build|loaded]
 *        [--cache DIR] [--idle-ms N] [--bundle DIR] [--node-flags "F"] [--table]
 *   calls: [{"tool":"grep","input":{…}}, …]
 */
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import type * as Lib from '../lib/index.ts';
import { bundleLibraryUrl, rerunPlain } from './bundle_library.ts';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : (args.splice(i, 2)[1] ?? '');
};
const bundle = flag('--bundle');
const nodeFlags = (flag('--node-flags') ?? '').split(' ').filter(Boolean);
// 'loaded': a runtime restarted on the tree (an MCP server, say) with the index `--cache` holds.
const indexUse = (flag('--index') ?? 'off') as 'off' | 'build' | 'loaded';
const cache = flag('--cache');
const idleMs = Number(flag('--idle-ms') ?? 8000);
const table = args.includes('--table');
const [root, workers, callsJson] = args.filter((a) => a !== '--table');
if (!root || !workers || !callsJson) {
  process.stderr.write(
    'usage: node --import tsx bench/memory_probe.ts <root> <workers> \'<json calls>\' [--index off|build|loaded] [--cache DIR] [--idle-ms N] [--bundle DIR] [--node-flags "F"] [--table]\n',
  );
  process.exit(2);
}

await rerunPlain(import.meta.url, bundle, nodeFlags);

const lib: typeof Lib = bundle ? await import(bundleLibraryUrl(bundle)) : await import('../lib/index.ts');

const status = (key: string) => {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Math.round((Number(m[1]) / 1024) * 10) / 10 : Number.NaN;
};
const rss = () => status('VmRSS');
const resetPeak = () => {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // not Linux ≥ 4.0: the peaks are the highest so far
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Call {
  tool: string;
  input: unknown;
}
interface CallFigure {
  call: string;
  beforeMiB: number;
  peakMiB: number;
  afterMiB: number;
  ms: number;
  index?: string;
}

/** Inotify watches the process holds (fs.watch's are unref'd: process.getActiveResourcesInfo misses them). */
function inotifyWatches(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (!readlinkSync(`/proc/self/fd/${fd}`).includes('inotify')) continue;
      n += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('inotify')).length;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

/** Where the memory is now: the process's anonymous and file-backed RSS, watches, each thread's heap. */
async function breakdown(rt: Lib.Runtime) {
  const idx = rt.searchIndex?.loaded;
  const heaps = (globalThis as { mewcodeAskThreadHeaps?: () => Promise<unknown[]> }).mewcodeAskThreadHeaps;
  return {
    rssMiB: rss(),
    rssAnonMiB: status('RssAnon'),
    rssFileMiB: status('RssFile'),
    watches: inotifyWatches(),
    indexTableMiB: idx ? Math.round((idx.table.byteLength / 1048576) * 10) / 10 : undefined,
    indexKeyTablesMiB: idx
      ? Math.round(
          (idx.parts.reduce((k, p) => k + ((p as { heldBytes?: number }).heldBytes ?? 12 * p.nKeys), 0) / 1048576) * 10,
        ) / 10
      : undefined,
    threads: heaps ? await heaps() : undefined,
    // The idle heap trim (lib/lanes/heap_trim.ts): how many ran, and the last one's main-thread ms
    // (absent on a build without it).
    heapTrims: (rt as { heapTrim?: { trims: number } }).heapTrim?.trims,
    heapTrimMs: (rt as { heapTrim?: { lastMs?: number } }).heapTrim?.lastMs,
    // The marks before it (absent on a build without them), and the main thread's young generation,
    // which the trim shrinks only after a mark.
    heapMarks: (rt as { heapTrim?: { marks?: number } }).heapTrim?.marks,
    // Collections asked for at once, after an index build (absent on a build without them).
    heapSweeps: (rt as { heapTrim?: { sweeps?: number } }).heapTrim?.sweeps,
    youngMiB:
      Math.round((v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0) / 104857.6) /
      10,
  };
}

async function runCalls(rt: Lib.Runtime, calls: readonly Call[]): Promise<CallFigure[]> {
  const out: CallFigure[] = [];
  for (const c of calls) {
    const beforeMiB = rss();
    resetPeak();
    const t = performance.now();
    const r = await rt.call(c.tool, c.input);
    const ms = Math.round(performance.now() - t);
    if (r.isError) throw new Error(`${c.tool} ${JSON.stringify(c.input)}: ${r.content}`);
    const index = r.meta?.index === undefined ? undefined : String(r.meta.index);
    out.push({
      call: `${c.tool} ${JSON.stringify(c.input)}`,
      beforeMiB,
      peakMiB: status('VmHWM'),
      afterMiB: rss(),
      ms,
      index,
    });
  }
  return out;
}

async function main(): Promise<void> {
  const startMiB = rss();
  const made = lib.createRuntime({
    root: root as string,
    workers: Number(workers),
    index: indexUse === 'off' ? 'off' : 'build',
    ...(cache ? { indexCacheDir: cache } : {}),
    home: null,
    readTimeoutMs: 600_000,
  });
  if (!made.ok) throw new Error(made.error);
  const rt = made.value;
  const calls = JSON.parse(callsJson as string) as Call[];
  const phases: Record<string, unknown> = {};
  const phase = async (name: string, body: () => Promise<unknown>) => {
    resetPeak();
    const t = performance.now();
    const figures = await body();
    // The high-water mark was reset before each call: the phase's peak is the highest of theirs too.
    const callPeaks = Array.isArray(figures)
      ? (figures as Partial<CallFigure>[]).flatMap((f) => (typeof f.peakMiB === 'number' ? [f.peakMiB] : []))
      : [];
    const peakMiB = Math.max(status('VmHWM'), ...callPeaks);
    phases[name] = { peakMiB, ms: Math.round(performance.now() - t), figures, at: await breakdown(rt) };
  };
  await phase('first', () => runCalls(rt, calls));
  if (indexUse !== 'off') await phase('building', () => rt.searchIndex?.settled() ?? Promise.resolve());
  await phase('serving', () => runCalls(rt, calls));
  await phase('idle', async () => {
    const samples: { afterMs: number; rssMiB: number }[] = [];
    const t = performance.now();
    const marks = new Set([250, 1000, 2000, 3000, 5000, 6000, 7000, 8000, 10_000, 12_000, idleMs]);
    for (const at of [...marks].filter((x) => x <= idleMs).sort((a, b) => a - b)) {
      await sleep(at - (performance.now() - t));
      samples.push({ afterMs: at, rssMiB: rss() });
    }
    return samples;
  });
  await phase('after idle', () => runCalls(rt, calls));
  // A heap snapshot of the main thread after idling (where its heap's MiB are), when asked.
  if (process.env.MEWCODE_PROBE_SNAPSHOT)
    (await import('node:v8')).writeHeapSnapshot(process.env.MEWCODE_PROBE_SNAPSHOT);
  await rt.close();
  const report = { root, workers: Number(workers), index: indexUse, bundle: bundle !== undefined, startMiB, phases };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  if (table) process.stderr.write(formatProbe(report));
}

/** The report as lines: each phase's peak, its calls, and where the memory was at its end. */
export function formatProbe(r: { index: string; startMiB: number; phases: Record<string, unknown> }): string {
  const lines = [`index ${r.index}: start ${r.startMiB} MiB`];
  for (const [name, p] of Object.entries(r.phases) as [
    string,
    { peakMiB: number; ms: number; figures: unknown; at: Awaited<ReturnType<typeof breakdown>> },
  ][]) {
    const at = p.at;
    const threads = (
      at.threads as { main: boolean; heapTotal: number; newSpace: number; external: number }[] | undefined
    )
      ?.map((t) => `${t.main ? 'main' : 'worker'} heap ${t.heapTotal} (new ${t.newSpace}, ext ${t.external})`)
      .join('; ');
    lines.push(
      `${name}: peak ${p.peakMiB} MiB, ${p.ms} ms; at its end RSS ${at.rssMiB} (anon ${at.rssAnonMiB}, file ${at.rssFileMiB}), ${at.watches} watches${at.indexTableMiB !== undefined ? `, index table ${at.indexTableMiB} + key tables ${at.indexKeyTablesMiB}` : ''}${at.heapTrims ? `, ${at.heapTrims} heap trims (last ${at.heapTrimMs} ms)` : ''}${at.heapMarks ? `, ${at.heapMarks} marks` : ''}, young generation ${at.youngMiB} MiB`,
    );
    if (threads) lines.push(`  ${threads}`);
    if (Array.isArray(p.figures))
      for (const f of p.figures as Partial<CallFigure & { afterMs: number; rssMiB: number }>[])
        lines.push(
          f.call
            ? `  ${String(f.beforeMiB).padStart(6)} ${String(f.peakMiB).padStart(6)} ${String(f.afterMiB).padStart(6)} ${String(f.ms).padStart(6)} ms  ${f.call.slice(0, 70)}${f.index ? `  [${f.index}]` : ''}`
            : `  +${f.afterMs} ms: ${f.rssMiB} MiB`,
        );
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
