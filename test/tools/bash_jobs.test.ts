// Background jobs (bash run_in_background, bash_output, kill_bash, write_stdin) on real processes:
// cursors that show nothing twice and lose nothing, waiting for output or the end, filters, stdin,
// whole process trees stopped, ends reported, the runtime's close stopping every job.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { test } from 'node:test';
import type { ToolResult } from '../../lib/core/tool.ts';
import { sandboxAt } from '../exec/_sandbox.ts';
import { runCli } from '../helpers/cli.ts';
import { killAfter, noSurvivors, processesWith } from '../helpers/processes.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir } from '../helpers/temp.ts';
import { waitFor } from '../helpers/wait.ts';

const root = tempDir();
const rt = runtimeAt(root, { workers: 0, permissions: { allow: { run: true } } });
const files: string[] = [];
test.after(() => {
  for (const f of files) rmSync(f, { force: true });
});

async function start(command: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await rt.call('bash', { command, run_in_background: true, ...extra });
  assert.equal(r.isError, false, r.content);
  files.push(String(r.meta?.spillPath));
  return String(r.meta?.bashId);
}
const output = (bash_id: string, extra: Record<string, unknown> = {}) => rt.call('bash_output', { bash_id, ...extra });
/** The job's new output: the answer without its state line. */
const body = (r: ToolResult) => r.content.slice(r.content.indexOf('\n') + 1);
/** Reads until the job has ended, joining what each read showed. */
async function readToEnd(id: string): Promise<{ text: string; last: ToolResult }> {
  let text = '';
  for (;;) {
    const r = await output(id, { wait_ms: 60_000 });
    assert.equal(r.isError, false, r.content);
    if (body(r) !== '(no new output)') text += `${body(r)}\n`;
    if (r.meta?.jobState !== 'running') return { text, last: r };
  }
}

test('a background job answers at once with its id; its output comes in reads that never repeat', async () => {
  const marker = `3601.${process.pid}`;
  killAfter(marker);
  const id = await start(`echo one; read x; echo "got $x"; exec sleep ${marker}`);
  assert.match(id, /^bash_\d+$/);
  const first = await output(id, { wait_ms: 60_000 });
  assert.equal(body(first), 'one');
  assert.equal(first.meta?.jobState, 'running');
  const again = await output(id);
  assert.equal(body(again), '(no new output)');
  const sent = await rt.call('write_stdin', { bash_id: id, chars: 'hello\n', wait_ms: 30_000 });
  assert.equal(sent.isError, false, sent.content);
  assert.equal(body(sent), 'got hello');
  await waitFor(() => processesWith(marker).length === 1, 'the job to reach its sleep');
  const killed = await rt.call('kill_bash', { bash_id: id });
  assert.equal(killed.meta?.jobState, 'stopped by kill_bash');
  await noSurvivors(marker);
});

test('reads plus the job file hold the output byte for byte; a long stretch names its skipped middle', async () => {
  const id = await start(`for i in $(seq 1 200000); do echo "line $i"; done`);
  const { text, last } = await readToEnd(id);
  assert.equal(last.meta?.jobState, 'exited 0');
  const file = readFileSync(String(last.meta?.spillPath), 'utf8');
  const expected = Array.from({ length: 200000 }, (_, i) => `line ${i + 1}\n`).join('');
  assert.equal(file, expected);
  // Every line shown is in order, none twice; the skipped middles are named by byte range.
  const shown = text.split('\n').filter((l) => l.startsWith('line '));
  const numbers = shown.map((l) => Number(l.slice(5)));
  for (let i = 1; i < numbers.length; i++) assert.ok((numbers[i] as number) > (numbers[i - 1] as number));
  assert.equal(numbers.at(-1), 200000);
  const ranges = [...text.matchAll(/bytes ([\d,]+)–([\d,]+) of the output/g)].map((m) =>
    [m[1], m[2]].map((n) => Number(String(n).replaceAll(',', ''))),
  );
  const skipped = ranges.reduce((n, [a, b]) => n + ((b as number) - (a as number)), 0);
  const shownBytes = shown.reduce((n, l) => n + l.length + 1, 0);
  // Lines cut at a read's edge are shown in two parts; the bytes shown and skipped cover the output.
  assert.ok(shownBytes + skipped >= expected.length - 2 * ranges.length * 16, `${shownBytes} + ${skipped}`);
});

test('filter keeps the matching lines; an invalid regex is refused before anything is consumed', async () => {
  const id = await start(`printf 'ok 1\\nwarn: disk\\nok 2\\nerror: boom\\n'`);
  const bad = await output(id, { filter: '(unclosed' });
  assert.equal(bad.code, 'invalid_args');
  await waitFor(async () => rt.jobs.get(id)?.running === false, 'the job to end');
  const r = await output(id, { filter: 'warn|error' });
  assert.equal(body(r), 'warn: disk\nerror: boom');
  assert.match(r.content, /2 of 4 new lines match the filter/);
  assert.equal(body(await output(id)), '(no new output)');
});

test('a regex that backtracks without end is stopped, not left to hang the runtime', async () => {
  const id = await start(`printf '%s\\n' ${'a'.repeat(40)}c`);
  await waitFor(async () => rt.jobs.get(id)?.running === false, 'the job to end');
  const r = await output(id, { filter: '(a+)+b' });
  // Our regex translation may make the pattern linear; either way the call answers.
  assert.ok(r.code === 'timeout' || body(r) === '(no new output)', r.content);
});

test('kill_bash ends the whole tree: setsid and double forks included', async () => {
  const marker = `3602.${process.pid}`;
  killAfter(marker);
  const id = await start(`(setsid sleep ${marker} &); ( (sleep ${marker} &) & ); sleep ${marker}`);
  await waitFor(() => processesWith(marker).length === 3, 'three sleepers');
  const r = await rt.call('kill_bash', { bash_id: id });
  assert.equal(r.isError, false, r.content);
  await noSurvivors(marker);
});

test('a job that ends is reported once to onEnded, with its state', async () => {
  const ended: string[] = [];
  const stop = rt.jobs.onEnded((j) => ended.push(`${j.id} ${j.state}`));
  try {
    const id = await start('exit 3');
    await waitFor(() => ended.some((e) => e.startsWith(`${id} `)), 'the end to be reported');
    assert.deepEqual(
      ended.filter((e) => e.startsWith(`${id} `)),
      [`${id} exited 3`],
    );
  } finally {
    stop();
  }
});

test('a dev server started in the background answers a later foreground curl; killing it frees the port', async () => {
  const port = await freePort();
  const id = await start(
    `exec node -e "require('http').createServer((q,s)=>s.end('hi from job')).listen(${port},'127.0.0.1',()=>console.log('listening'))"`,
  );
  let seen = '';
  await waitFor(async () => {
    seen += body(await output(id, { wait_ms: 1000 }));
    return seen.includes('listening');
  }, 'the server to listen');
  const curl = await rt.call('bash', { command: `curl -s http://127.0.0.1:${port}/` });
  assert.match(curl.content, /hi from job/);
  await rt.call('kill_bash', { bash_id: id });
  assert.equal(await freePort(port), port);
});

test('unknown ids, ended jobs and a closed runtime answer clearly', async () => {
  const unknown = await output('bash_999999');
  assert.equal(unknown.code, 'not_found');
  assert.match(unknown.content, /no background job "bash_999999"/);
  const id = await start('true');
  await waitFor(async () => rt.jobs.get(id)?.running === false, 'the job to end');
  const late = await rt.call('write_stdin', { bash_id: id, chars: 'x' });
  assert.equal(late.code, 'invalid_args');
  assert.match(late.content, /has ended \(exited 0\)/);
  const killed = await rt.call('kill_bash', { bash_id: id });
  assert.equal(killed.meta?.jobState, 'exited 0');
});

test("the runtime's close stops every job", async () => {
  const other = runtimeAt(root, { workers: 0, permissions: { allow: { run: true } } });
  const marker = `3603.${process.pid}`;
  killAfter(marker);
  for (let i = 0; i < 3; i++) {
    const r = await other.call('bash', { command: `sleep ${marker}`, run_in_background: true });
    files.push(String(r.meta?.spillPath));
  }
  await waitFor(() => processesWith(marker).length === 3, 'three jobs');
  await other.close();
  assert.deepEqual(processesWith(marker), []);
  const refused = await other.call('bash', { command: 'true', run_in_background: true });
  assert.equal(refused.isError, true);
});

/** A port nobody listens on (or `want` once it is free again). */
function freePort(want = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(want, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

test('a one-shot `mewcode call` refuses run_in_background, saying why and what to do', async () => {
  const r = await runCli([
    'call',
    'bash',
    JSON.stringify({ command: 'echo hi', run_in_background: true }),
    '--root',
    root,
    '--allow-run',
  ]);
  assert.equal(r.code, 1);
  assert.match(r.err, /run_in_background needs a runtime that outlives the call/);
  assert.match(r.err, /run the command in the foreground/);
});

test('under --sandbox a job runs boxed, takes stdin, and kill_bash leaves nothing behind', async () => {
  requireTool('bwrap');
  const boxed = sandboxAt(root);
  const marker = `3604.${process.pid}`;
  killAfter(marker);
  const r = await boxed.call('bash', {
    command: `touch /etc/mewcode-escape 2>&1 || echo refused; read x; echo "got $x"; sleep ${marker}`,
    run_in_background: true,
  });
  assert.equal(r.isError, false, r.content);
  assert.equal(r.meta?.sandboxed, true);
  files.push(String(r.meta?.spillPath));
  const id = String(r.meta?.bashId);
  const sent = await boxed.call('write_stdin', { bash_id: id, chars: 'boxed\n', wait_ms: 30_000 });
  let seen = body(sent);
  await waitFor(async () => {
    seen += body(await boxed.call('bash_output', { bash_id: id, wait_ms: 1000 }));
    return seen.includes('got boxed');
  }, 'the job to answer');
  assert.match(seen, /refused|Read-only file system|Permission denied/);
  await waitFor(() => processesWith(marker).length >= 1, 'the job to reach its sleep');
  await boxed.call('kill_bash', { bash_id: id });
  await noSurvivors(marker);
});

test('write_stdin to a job that never reads answers, and kill_bash queued behind it still runs', async () => {
  const marker = `3605.${process.pid}`;
  killAfter(marker);
  const id = await start(`exec sleep ${marker}`);
  // More than a pipe holds (64 KiB): the job never takes it, so the write cannot complete.
  const sent = await rt.call('write_stdin', { bash_id: id, chars: 'x'.repeat(300_000), wait_ms: 200 });
  assert.equal(sent.isError, false, sent.content);
  assert.ok(Number(sent.meta?.queued) > 0, sent.content);
  assert.match(sent.content, /not read by the job yet/);
  // What stays queued is bounded: past it, more input is refused instead of piling up in memory.
  let refused: ToolResult | undefined;
  for (let i = 0; i < 10 && !refused; i++) {
    const more = await rt.call('write_stdin', { bash_id: id, chars: 'y'.repeat(300_000), wait_ms: 0 });
    if (more.isError) refused = more;
  }
  assert.equal(refused?.code, 'invalid_args');
  assert.match(String(refused?.content), /has not read the \d+ bytes sent to it before/);
  const killed = await rt.call('kill_bash', { bash_id: id });
  assert.equal(killed.meta?.jobState, 'stopped by kill_bash');
  await noSurvivors(marker);
});

test('a full disk stops the output file, not the runtime: the job runs on and the answers say so', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('needs root to mount a small tmpfs');
  const mnt = tempDir();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mnt]);
  } catch (e) {
    return t.skip(`cannot mount a tmpfs here: ${(e as Error).message.split('\n')[0]}`);
  }
  // The spill directory is under the OS temp dir, read at each use: here, the full tmpfs.
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = mnt;
  try {
    const write = `head -c 1000000 /dev/zero | tr '\\0' x; echo; echo done`;
    const id = await start(write);
    const { text, last } = await readToEnd(id);
    assert.equal(last.meta?.jobState, 'exited 0');
    assert.equal(last.meta?.bytes, 1_000_006);
    assert.match(
      last.content,
      /writing its file failed \(ENOSPC\) after [\d,]+ bytes: what the job wrote past them is lost/,
    );
    assert.doesNotMatch(text, /done/);
    const fg = await rt.call('bash', { command: write });
    assert.equal(fg.isError, false, fg.content);
    assert.match(fg.content, /its first [\d,]+ bytes: writing more failed, ENOSPC/);
    assert.match(fg.content, /\ndone\n?$/);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    execFileSync('umount', [mnt]);
  }
});

test("a job's state names the memory limit that ended it, as a foreground answer does", async (t) => {
  const limited = runtimeAt(root, { workers: 0, permissions: { allow: { run: true } }, limits: { memory: '256M' } });
  const probe = await limited.call('bash', { command: 'true' });
  if (probe.meta?.limits?.memory === 'none') return t.skip('no memory limit can be held here');
  const r = await limited.call('bash', {
    command: 'node -e "const a=[];for(;;)a.push(Buffer.alloc(1e7,1))"',
    run_in_background: true,
  });
  files.push(String(r.meta?.spillPath));
  let last: ToolResult | undefined;
  while (!last || last.meta?.jobState === 'running')
    last = await limited.call('bash_output', { bash_id: String(r.meta?.bashId), wait_ms: 60_000 });
  assert.match(String(last.meta?.jobState), /memory limit \(256 MiB\) (probably )?reached/);
  assert.equal(last.meta?.limitHit?.limit, 'memory');
});

test('a listener of job ends that throws does not keep the others from hearing it', async () => {
  const heard: string[] = [];
  const stopBad = rt.jobs.onEnded(() => {
    throw new Error('a broken listener');
  });
  const stopGood = rt.jobs.onEnded((j) => heard.push(j.id));
  try {
    const id = await start('exit 0');
    await waitFor(() => heard.includes(id), 'the second listener to hear the end');
    assert.equal(rt.jobs.get(id)?.state, 'exited 0');
  } finally {
    stopBad();
    stopGood();
  }
});
