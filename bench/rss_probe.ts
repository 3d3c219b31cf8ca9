/**
 * Child process of the benchmark: runs the given grep inputs through one warm runtime and reports the
 * RSS of the whole process (main thread and worker threads share it): at start, and for each call the
 * RSS before it, the peak during it and the RSS after it, plus its time. A warm runtime should return
 * near its start between calls (no whole-tree results alive). The peak is per call: Linux's high-water
 * mark (VmHWM) is reset before each call through /proc/self/clear_refs; where that cannot be written,
 * the peak so far is reported. Prints one JSON line; with --table also a readable table on stderr.
 * Usage: node --import tsx bench/rss_probe.ts <root> <workers> '<json array of grep inputs>' [--bundle DIR] [--table]
 *   --bundle DIR  use DIR/dist/mewcode.mjs (the built library) instead of the sources. The probe then
 *                 re-runs itself as plain JavaScript under plain node: tsx in the process would add
 *                 ~35 MiB to the main thread, and its loader to every worker (workers inherit execArgv).
 *   --node-flags "F"  with --bundle: node flags for that run, e.g. "--max-semi-space-size=2"
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type * as Lib from '../lib/index.ts';
import { bundleLibraryUrl, rerunPlain } from './bundle_library.ts';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : (args.splice(i, 2)[1] ?? '');
};
const bundle = flag('--bundle');
const nodeFlags = (flag('--node-flags') ?? '').split(' ').filter(Boolean);
const table = args.includes('--table');
const [root, workers, inputs] = args.filter((a) => a !== '--table');
if (args.includes('--help') || !root || !workers || !inputs) {
  process.stderr.write(
    'usage: node --import tsx bench/rss_probe.ts <root> <workers> \'<json array of grep inputs>\' [--bundle DIR] [--node-flags "F"] [--table]\n',
  );
  process.exit(2);
}

await rerunPlain(import.meta.url, bundle, nodeFlags);

const lib: typeof Lib = bundle ? await import(bundleLibraryUrl(bundle)) : await import('../lib/index.ts');

const status = (key: string) => {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
};
const rss = () => status('VmRSS');
/** Resets the peak RSS to the current RSS (Linux ≥ 4.0); false when it cannot. */
const resetPeak = () => {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
};
const round = (n: number) => Math.round(n * 10) / 10;

const made = lib.createRuntime({ root: root ?? '.', workers: Number(workers ?? 2), index: 'off' });
if (!made.ok) throw new Error(made.error);
const startMiB = round(rss());
const calls: {
  input: unknown;
  beforeMiB: number;
  peakMiB: number;
  afterMiB: number;
  /** The main thread's V8 heap after the call (the rest of the RSS is the workers' and native memory). */
  mainHeapMiB: number;
  /** With --expose-gc: the main thread's live heap after a full collection. */
  liveMiB?: number;
  ms: number;
}[] = [];
let perCall = true;
for (const input of JSON.parse(inputs ?? '[]') as unknown[]) {
  const beforeMiB = round(rss());
  perCall &&= resetPeak();
  const t = performance.now();
  const r = await made.value.call('grep', input);
  const ms = Math.round(performance.now() - t);
  if (r.isError) throw new Error(r.content);
  await new Promise((resolve) => setTimeout(resolve, 50)); // let the results go out of scope
  const mainHeapMiB = round(process.memoryUsage().heapTotal / 1048576);
  const afterMiB = round(rss());
  // Under --expose-gc: what the main thread still holds once its garbage is collected.
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const liveMiB = gc ? round(process.memoryUsage().heapUsed / 1048576) : undefined;
  calls.push({ input, beforeMiB, peakMiB: round(status('VmHWM')), afterMiB, mainHeapMiB, liveMiB, ms });
}
await made.value.close();
const endMiB = round(rss());
const maxRssKiB = process.resourceUsage().maxRSS; // the whole run's peak (never reset by clear_refs)
const peakMiB = Math.max(...calls.map((c) => c.peakMiB));
const afterMiB = calls.map((c) => c.afterMiB);
process.stdout.write(
  `${JSON.stringify({ maxRssKiB: perCall ? Math.round(peakMiB * 1024) : maxRssKiB, startMiB, afterMiB, endMiB, perCall, calls })}\n`,
);
if (table) {
  const rows = calls.map(
    (c) =>
      `${[c.beforeMiB, c.peakMiB, c.afterMiB, c.mainHeapMiB, c.liveMiB ?? '—']
        .map((n) => String(n).padStart(7))
        .join(' ')}${String(c.ms).padStart(7)}  ${JSON.stringify(c.input)}`,
  );
  process.stderr.write(
    [
      `RSS MiB, whole process, ${workers} workers, ${bundle ? 'bundle' : 'sources (tsx)'}${process.execArgv.length ? ` (node ${process.execArgv.join(' ')})` : ''}; start ${startMiB}, after close ${endMiB}`,
      ` before    peak   after    main    live      ms  call${perCall ? '' : '  (peak: highest so far, clear_refs not writable)'}`,
      ...rows,
      '',
    ].join('\n'),
  );
}
