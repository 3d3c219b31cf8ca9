import type { createRuntime as CreateRuntime } from '../lib/runtime/runtime.ts';
import { bundleLibraryUrl } from './bundle_library.ts';

const bundle = process.env.MEWCODE_PROBE_BUNDLE;
const { createRuntime } = (
  bundle ? await import(bundleLibraryUrl(bundle)) : await import('../lib/runtime/runtime.ts')
) as { createRuntime: typeof CreateRuntime };

const [mode, root, cacheDir, workers, inputs] = process.argv.slice(2);
const made = createRuntime({
  root: root ?? '.',
  workers: Number(workers ?? 2),
  index: mode === 'scan' ? 'off' : 'build',
  indexCacheDir: cacheDir ?? '',
  home: null,
  readTimeoutMs: 600_000,
});
if (!made.ok) throw new Error(made.error);
const rt = made.value;
const started = performance.now();
let served = 0;
let rebuildMs: number | undefined;
let rebuildCpuMs: number | undefined;
const cpuMs = (since?: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
};
if (mode === 'scan') {
  const input = { pattern: 'ERROR 777', output_mode: 'count', head_limit: 0 };
  await rt.call('grep', input); // starts the workers
  const c = process.cpuUsage();
  const t = performance.now();
  await rt.call('grep', input);
  rebuildMs = performance.now() - t;
  rebuildCpuMs = cpuMs(c);
} else if (mode === 'build') {
  const r = await rt.searchIndex?.build();
  if (!r?.ok) throw new Error(r ? r.message : 'no index');
  // A warm runtime's build runs on workers already started (it follows a first search): time a
  // second build in the same process too — the first one includes starting the workers.
  const c = process.cpuUsage();
  const t = performance.now();
  await rt.searchIndex?.build();
  rebuildMs = performance.now() - t;
  rebuildCpuMs = cpuMs(c);
} else {
  for (const input of JSON.parse(inputs ?? '[]') as unknown[]) {
    const r = await rt.call('grep', input);
    if (r.isError) throw new Error(r.content);
    if (String(r.meta?.index).startsWith('served')) served++;
  }
}
const ms = performance.now() - started - (rebuildMs ?? 0);
await rt.close();
const maxRssKiB = process.resourceUsage().maxRSS;
process.stdout.write(`${JSON.stringify({ ms, rebuildMs, rebuildCpuMs, served, maxRssKiB })}\n`);
