/**
 * What background jobs cost the runtime: N jobs at once, each writing M bytes, read with bash_output
 * until they end; the process's RSS before, its peak (VmHWM, reset at the start) and after, and for
 * each job whether its file holds every byte it wrote. Figures only, never a threshold.
 * Usage: node --import tsx bench/jobs_memory.ts [jobs=50] [bytes=20000000]
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRuntime } from '../lib/runtime/runtime.ts';

const [jobs = 50, bytes = 20_000_000] = process.argv.slice(2).map(Number);
const kb = (key: string) =>
  Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
const mib = (k: number) => Math.round((k / 1024) * 10) / 10;
const root = mkdtempSync(path.join(tmpdir(), 'mewcode-jobs-bench-'));
const made = createRuntime({ root, home: null, workers: 0, permissions: { allow: { run: true } } });
if (!made.ok) throw new Error(made.error);
const rt = made.value;
await rt.call('bash', { command: 'true' }); // the first command's one-time costs (containment probe) before the baseline
const before = kb('VmRSS');
writeFileSync('/proc/self/clear_refs', '5');
const ids: string[] = [];
const files: string[] = [];
for (let i = 0; i < jobs; i++) {
  const r = await rt.call('bash', {
    command: `yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c ${bytes}`,
    run_in_background: true,
  });
  if (r.isError) throw new Error(r.content);
  ids.push(String(r.meta?.bashId));
  files.push(String(r.meta?.spillPath));
}
let shown = 0;
for (const id of ids) {
  for (;;) {
    const r = await rt.call('bash_output', { bash_id: id, wait_ms: 60_000 });
    shown += Buffer.byteLength(r.content);
    if (r.meta?.jobState !== 'running') break;
  }
}
const peak = kb('VmHWM');
// Each file holds every byte the job wrote, as the runtime counted it (the shell may add its own
// messages to the command's output, so the count, not M, is what the file must match).
const complete = ids.filter((id, i) => statSync(files[i] as string).size === rt.jobs.get(id)?.bytes).length;
console.log(
  JSON.stringify({
    jobs,
    bytesEach: bytes,
    rssBeforeMiB: mib(before),
    rssPeakMiB: mib(peak),
    growthMiB: mib(peak - before),
    rssAfterMiB: mib(kb('VmRSS')),
    filesComplete: `${complete} of ${jobs}`,
    shownBytes: shown,
  }),
);
await rt.close();
for (const f of files) rmSync(f, { force: true });
rmSync(root, { recursive: true, force: true });
