/**
 * Child process of the benchmark: runs the given grep inputs through one warm runtime and prints
 * the process's peak RSS (main thread and workers together) as JSON.
 * Usage: node --import tsx bench/rss_probe.ts <root> <workers> '<json array of grep inputs>'
 */
import { createRuntime } from '../lib/runtime.ts';

const [root, workers, inputs] = process.argv.slice(2);
const made = createRuntime({ root: root ?? '.', workers: Number(workers ?? 2), index: 'off' });
if (!made.ok) throw new Error(made.error);
for (const input of JSON.parse(inputs ?? '[]') as unknown[]) {
  const r = await made.value.call('grep', input);
  if (r.isError) throw new Error(r.content);
}
await made.value.close();
process.stdout.write(`${JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS })}\n`);
