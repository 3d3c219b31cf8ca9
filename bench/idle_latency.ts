import { parseArgs } from 'node:util';
import type * as Lib from '../lib/index.ts';
import { bundleLibraryUrl } from './bundle_library.ts';
import { median } from './oneshot.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    bundle: { type: 'string' },
    reps: { type: 'string' },
    short: { type: 'string' },
    long: { type: 'string' },
  },
});
const root = positionals[0];
if (!root) throw new Error('usage: bench/idle_latency.ts <root> [--bundle DIR] [--reps N] [--short MS] [--long MS]');
const lib: typeof Lib = values.bundle ? await import(bundleLibraryUrl(values.bundle)) : await import('../lib/index.ts');
const made = lib.createRuntime({ root, workers: 2, index: 'off', home: null, readTimeoutMs: 600_000 });
if (!made.ok) throw new Error(made.error);
const rt = made.value;
const calls: [string, unknown][] = [
  ['grep', { pattern: 'resourceLimits', output_mode: 'files_with_matches' }],
  ['glob', { pattern: '**/*.ts' }],
];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const times: Record<string, number[]> = {};
for (const [name, input] of calls) await rt.call(name, input); // warm-up
const pauses = { kept: Number(values.short ?? 2000), ended: Number(values.long ?? 8000) };
for (let rep = 0; rep < Number(values.reps ?? 5); rep++)
  for (const [label, ms] of rep % 2 ? Object.entries(pauses).reverse() : Object.entries(pauses)) {
    await sleep(ms);
    for (const [name, input] of calls) {
      const t = performance.now();
      await rt.call(name, input);
      const key = `${name} after ${label} (${ms} ms pause)`;
      times[key] = [...(times[key] ?? []), performance.now() - t];
    }
  }
await rt.close();
for (const [k, v] of Object.entries(times))
  process.stdout.write(`${k}: median ${median(v).toFixed(0)} ms  [${v.map((x) => x.toFixed(0)).join(', ')}]\n`);
