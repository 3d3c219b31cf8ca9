/**
 * Child process of the benchmark: runs the given grep inputs through one warm runtime and prints
 * the process's peak RSS (main thread and workers together) and its RSS before and after each call,
 * as JSON: a warm runtime should return near its start between calls (no whole-tree results alive).
 * Usage: node --import tsx bench/rss_probe.ts <root> <workers> '<json array of grep inputs>'
 */
import { createRuntime } from '../lib/runtime.ts';

const [root, workers, inputs] = process.argv.slice(2);
const made = createRuntime({ root: root ?? '.', workers: Number(workers ?? 2), index: 'off' });
if (!made.ok) throw new Error(made.error);
const mib = () => Math.round(process.memoryUsage.rss() / 1024 / 102.4) / 10;
const startMiB = mib();
const afterMiB: number[] = [];
for (const input of JSON.parse(inputs ?? '[]') as unknown[]) {
  const r = await made.value.call('grep', input);
  if (r.isError) throw new Error(r.content);
  await new Promise((resolve) => setTimeout(resolve, 50)); // let the results go out of scope
  afterMiB.push(mib());
}
await made.value.close();
process.stdout.write(`${JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS, startMiB, afterMiB })}\n`);
