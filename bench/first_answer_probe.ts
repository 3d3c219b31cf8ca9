/**
 * Child process of the first-answer benchmark (bench/first_answer.ts): one fresh runtime, as an agent
 * loop or MCP server starts one, and its first searches of the root, each timed. `indexed`: a warm
 * runtime that loads the index already in the cache directory — its first search, then (once the
 * index's background work is done, timed from the first search's start) the next three, the last
 * of which is served without a walk. `unindexed`: a runtime without an index — its first search, then
 * three warm ones. Prints JSON: each search's wall and CPU ms (all the process's threads: the main
 * thread's and the workers') and how the index served it, and the answer's lines.
 * With MEWCODE_PROBE_BUNDLE=<checkout> it runs that checkout's built bundle (as bench/index_probe.ts);
 * with MEWCODE_PROBE_SOURCES=<checkout>, that checkout's sources (a before/after comparison).
 * Usage: node --import tsx bench/first_answer_probe.ts indexed|unindexed <root> <cacheDir> <workers> <pattern>
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { createRuntime as CreateRuntime } from '../lib/runtime/runtime.ts';
import { bundleLibraryUrl } from './bundle_library.ts';

const bundle = process.env.MEWCODE_PROBE_BUNDLE;
const sources = process.env.MEWCODE_PROBE_SOURCES;
const { createRuntime } = (
  bundle
    ? await import(bundleLibraryUrl(bundle))
    : sources
      ? await import(pathToFileURL(path.join(path.resolve(sources), 'lib/runtime/runtime.ts')).href)
      : await import('../lib/runtime/runtime.ts')
) as { createRuntime: typeof CreateRuntime };

const [mode, root, cacheDir, workers, pattern] = process.argv.slice(2);
const made = createRuntime({
  root: root ?? '.',
  workers: Number(workers ?? 2),
  index: mode === 'indexed' ? 'build' : 'off',
  indexCacheDir: cacheDir ?? '',
  home: null,
  readTimeoutMs: 600_000,
});
if (!made.ok) throw new Error(made.error);
const rt = made.value;
const input = { pattern, output_mode: 'count', head_limit: 0 };
const searches: { ms: number; cpuMs: number; index: string }[] = [];
let lines: string[] = [];
const search = async () => {
  const c = process.cpuUsage();
  const t = performance.now();
  const r = await rt.call('grep', input);
  const used = process.cpuUsage(c);
  const cpuMs = (used.user + used.system) / 1000;
  searches.push({ ms: performance.now() - t, cpuMs, index: String(r.meta?.index ?? 'off') });
  if (r.isError) throw new Error(r.content);
  // An answer with no match is a sentence ("No matches for …"), where rg prints nothing.
  lines = r.content.startsWith('No matches for ')
    ? []
    : r.content.split('\n').filter((l) => l !== '' && !l.startsWith('['));
};
const started = performance.now();
await search();
// The index's work after its first answer (none before the background check): what it is waiting for.
await rt.searchIndex?.settled();
const settledMs = performance.now() - started;
for (let i = 0; i < 3; i++) await search();
await rt.close();
process.stdout.write(`${JSON.stringify({ searches, settledMs, lines })}\n`);
