import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { runProgram } from './helpers/cli.ts';
import { startModel } from './helpers/fake_model.ts';
import { mcpClient } from './helpers/mcp_client.ts';
import { startOtlpReceiver } from './helpers/otlp_receiver.ts';
import { REPO, TSX } from './helpers/repo.ts';
import { tempDir, writeTree } from './helpers/temp.ts';

// The build, written into an empty directory; then that one file alone is copied into another empty
// directory (no node_modules anywhere above it, no build.json beside it) and run with plain node.
const built = tempDir('mewcode-bundle-build-');
execFileSync(
  process.execPath,
  ['--import', TSX, path.join(REPO, 'scripts/build.ts'), '--out', path.join(built, 'mewcode.mjs')],
  {
    cwd: REPO,
    stdio: 'pipe',
  },
);
const dir = tempDir('mewcode-bundle-');
const bundle = path.join(dir, 'mewcode.mjs');
copyFileSync(path.join(built, 'mewcode.mjs'), bundle);
const project = path.join(dir, 'project');
writeTree(project, { 'README.md': '# hello\n', 'src/a.ts': 'export const a = 1; // TODO\n' });
for (let i = 0; i < 2500; i++) writeTree(project, { [`many/f${i}.txt`]: `TODO ${i}\n` });
const PLAIN_ENV = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(ANTHROPIC|OPENAI)_|^NODE_OPTIONS$/.test(k)),
);

/** The bundle (or `program`) run by plain node from its own directory, without tsx or model keys. */
const node = (args: string[], input = '', program = bundle) =>
  runProgram(process.execPath, [program, '--root', project, ...args], { cwd: dir, env: PLAIN_ENV, input });

/** The islands of a bundle's text (lib/core/islands.ts): name → where its payload starts and ends. */
function islands(text: string): Map<string, [number, number]> {
  const found = new Map<string, [number, number]>();
  for (const m of text.matchAll(/\n\/\*mewcode-island \w+ ([\w-]+)\n/g)) {
    const start = (m.index ?? 0) + m[0].length;
    found.set(m[1] as string, [start, text.indexOf('\n*/', start)]);
  }
  return found;
}

/** A copy of the bundle whose islands `names` are garbage: a command that loads one of them fails. */
function spoiled(names: string[]): string {
  let text = readFileSync(bundle, 'latin1');
  for (const [name, [start, end]] of islands(text))
    if (names.includes(name)) text = text.slice(0, start) + 'A'.repeat(end - start) + text.slice(end);
  const copy = path.join(tempDir('mewcode-spoiled-'), 'mewcode.mjs');
  writeFileSync(copy, text);
  return copy;
}

test('bundle: one file, which the build writes alone and which runs alone', async () => {
  assert.deepEqual(readdirSync(built).sort(), ['build.json', 'mewcode.mjs']);
  assert.deepEqual(readdirSync(dir).sort(), ['mewcode.mjs', 'project']);
  assert.deepEqual([...islands(readFileSync(bundle, 'latin1')).keys()].sort(), [
    'anthropic',
    'bash-parser',
    'mcp',
    'mewcode',
    'openai',
    'opentelemetry',
    'pdf',
    'read-lane',
  ]);
  assert.match((await node(['--version'])).out, /^mewcode \d+\.\d+\.\d+\n$/);
  // Pure ASCII: one other byte would make node decode the whole file as a two-byte string.
  assert.ok(!/[^\0-\x7f]/.test(readFileSync(bundle, 'latin1')));
});

test('bundle: --version and --help load no island; grep and glob never the SDKs, MCP or the bash parser', async () => {
  const bare = spoiled(['anthropic', 'openai', 'mcp', 'bash-parser', 'mewcode']);
  assert.match((await node(['--version'], '', bare)).out, /^mewcode /);
  assert.match((await node(['--help'], '', bare)).out, /grep/);
  // The proof that spoiling bites: a command that needs the spoiled island fails.
  assert.notEqual((await node(['glob', 'src/**'], '', bare)).code, 0);
  const lean = spoiled(['anthropic', 'openai', 'mcp', 'bash-parser', 'pdf']);
  const g = await node(['grep', 'TODO', '-c', '--head-limit', '0', '--workers', '2'], '', lean);
  assert.equal(g.out.trim().split('\n').length, 2501, g.err);
  assert.deepEqual(await node(['glob', 'src/**'], '', lean), { code: 0, out: 'src/a.ts\n', err: '' });
  assert.notEqual((await node(['call', 'bash', '{"command":"true"}', '-A'], '', lean)).code, 0);
});

test('bundle: grep and glob, through its own worker threads', async () => {
  const g = await node(['grep', '-n', 'TODO', '--head-limit', '2', '--workers', '2']);
  assert.equal(g.code, 0, g.err);
  assert.equal(g.out.split('\n').slice(0, 2).join('\n'), 'many/f0.txt:1:TODO 0\nmany/f1.txt:1:TODO 1');
  const c = await node(['grep', 'TODO', '-c', '--head-limit', '0', '--workers', '2']);
  assert.equal(c.out.trim().split('\n').length, 2501);
  assert.deepEqual(await node(['glob', 'src/**']), { code: 0, out: 'src/a.ts\n', err: '' });
});

test('bundle: call, bash and batch', async () => {
  assert.deepEqual(await node(['call', 'read_file', '{"file_path":"README.md"}']), {
    code: 0,
    out: '     1\t# hello\n',
    err: '',
  });
  const sh = await node(['call', 'bash', '{"command":"echo hi there | tr a-z A-Z"}', '-A']);
  assert.equal(sh.code, 0, sh.err);
  assert.match(sh.out, /HI THERE/);
  const b = await node(
    ['batch', '-', '--allow-write'],
    JSON.stringify([
      { name: 'write_file', input: { file_path: 'out.txt', content: 'x\n' } },
      { name: 'read_file', input: { file_path: 'out.txt' } },
    ]),
  );
  assert.equal(b.code, 0, b.err);
  assert.deepEqual(
    (JSON.parse(b.out) as { content: string }[]).map((r) => r.content),
    ['Created "out.txt" (2 bytes, 1 lines).', '     1\tx'],
  );
});

test('bundle: an agent run against an OpenAI-compatible server', async () => {
  const model = await startModel([
    { calls: [{ name: 'read_file', input: { file_path: 'README.md' } }] },
    { text: 'A greeting.' },
  ]);
  const r = await node([...model.openaiFlags, 'what is in README.md?']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'A greeting.\n');
});

test('bundle: OpenTelemetry is loaded only when an endpoint is set, and then exports from its island', async () => {
  const receiver = await startOtlpReceiver();
  const run = async (program: string, env: Record<string, string> = {}) => {
    const model = await startModel([{ text: 'A greeting.' }]);
    return runProgram(process.execPath, [program, '--root', project, ...model.openaiFlags, '--model', 'm1', 'say hi'], {
      cwd: dir,
      env: { ...PLAIN_ENV, ...env },
    });
  };
  const noOtel = spoiled(['opentelemetry']);
  const plain = await run(noOtel);
  assert.deepEqual([plain.code, plain.out], [0, 'A greeting.\n'], plain.err);
  assert.doesNotMatch(plain.err, /OpenTelemetry/);
  // The proof that spoiling bites: with an endpoint the island is needed, and the run goes on without it.
  const spoilt = await run(noOtel, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  assert.match(spoilt.err, /no OpenTelemetry this run/);
  assert.equal(spoilt.code, 0);
  assert.equal(receiver.requests.length, 0);
  const sent = await run(bundle, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  assert.equal(sent.code, 0, sent.err);
  assert.deepEqual(
    receiver
      .spans()
      .map((s) => s.name)
      .sort(),
    ['chat m1', 'invoke_agent mewcode'],
  );
  assert.ok(receiver.points().some((p) => p.metric === 'gen_ai.client.token.usage'));
});

test('bundle: serves MCP over stdio', async () => {
  const { client } = await mcpClient({
    root: project,
    program: { command: process.execPath, args: [bundle] },
    cwd: dir,
  });
  const { tools } = await client.listTools();
  // The registry's 16, then the journal's history and rewind (served to clients only).
  assert.equal(tools.length, 18);
  const r = await client.callTool({ name: 'glob', arguments: { pattern: 'src/*' } });
  assert.equal((r.content as { text: string }[])[0]?.text, 'src/a.ts');
});

test('bundle: imported as a library by a monorepo script, without running the CLI', async () => {
  const script = path.join(dir, 'script.mjs');
  // Arguments a CLI would act on: importing must not.
  writeFileSync(
    script,
    `import * as lib from './mewcode.mjs';
const made = lib.createRuntime({ root: ${JSON.stringify(project)}, workers: 1 });
if (!made.ok) throw new Error(made.error);
const r = await made.value.call('grep', { pattern: 'TODO', path: 'src' });
const batch = await made.value.batch([{ name: 'glob', input: { pattern: 'src/*' } }, { name: 'read_file', input: { file_path: 'README.md' } }]);
console.log(JSON.stringify({ grep: r.content, batch: batch.map((b) => b.content), defs: made.value.definitions('openai').length, names: Object.keys(lib).sort() }));
await made.value.close();
`,
  );
  const out = execFileSync(process.execPath, [script, '--version', 'grep', 'x'], { cwd: dir, encoding: 'utf8' });
  const lib = (await import('../lib/index.ts')) as Record<string, unknown>;
  const libNames = Object.keys(lib).filter((k) => lib[k] !== undefined);
  assert.deepEqual(JSON.parse(out), {
    grep: 'src/a.ts:1:export const a = 1; // TODO',
    batch: ['src/a.ts', '     1\t# hello'],
    defs: 16,
    names: [...libNames, 'runCli'].sort(),
  });
});

/**
 * For the scripts below: the main thread's young generation's size, and a burst of objects that
 * survive a few scavenges, as serving calls make.
 */
const YOUNG_JS = `const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const burst = () => {
  let kept = [];
  for (let round = 0; round < 40; round++) {
    const batch = [];
    for (let i = 0; i < 200000; i++) batch.push({ i, s: 'x' + i });
    kept.push(batch);
    if (kept.length > 3) kept.shift();
  }
};`;

/** Runs `body` as a script in the bundle's directory, after YOUNG_JS; its output. */
function youngScript(name: string, body: string): string {
  const script = path.join(dir, name);
  writeFileSync(script, `import v8 from 'node:v8';\n${YOUNG_JS}\n${body}\n`);
  return execFileSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
}

test('bundle: the library holds the young generation from its code loading on, and gives it back when closed', async () => {
  const out = youngScript(
    'young.mjs',
    `import * as lib from './mewcode.mjs';
const before = young();
const made = lib.createRuntime({ root: ${JSON.stringify(project)}, workers: 1 });
if (!made.ok) throw new Error(made.error);
const created = young();
const r = await made.value.call('grep', { pattern: 'TODO\\\\s+\\\\d', output_mode: 'count' });
const started = young();
burst();
const served = young();
await made.value.close();
burst();
console.log(JSON.stringify({ isError: r.isError, before, created, started, served, closed: young() }));`,
  );
  const got = JSON.parse(out) as {
    isError: boolean;
    before: number;
    created: number;
    started: number;
    served: number;
    closed: number;
  };
  assert.equal(got.isError, false);
  const { before, created, started, served, closed } = got;
  // From 1 MiB a semi-space the first scavenge commits the second; loading the code grew it to 8 before.
  assert.ok(created <= 2 * before, `loading the library's code and creating a runtime: ${before} → ${created} bytes`);
  // Held again once the worker is up: the burst does not grow it (a scavenge while the worker's
  // isolate is set up, on its own thread, can double it once: core/heap_hold.ts).
  assert.ok(served <= started, `a worker started and a burst made: held: ${started} → ${served} bytes`);
  assert.ok(closed >= 4 * created, `closed, the next burst grows it as V8 would: ${created} → ${closed} bytes`);
});

test('bundle: a runtime made on a worker thread that ends without closing it leaves the young generation free', async () => {
  // The flag is the process's, a thread's count of holders its own: such a runtime does not hold it.
  writeFileSync(
    path.join(dir, 'young_thread.mjs'),
    `import * as lib from './mewcode.mjs';
lib.createRuntime({ root: ${JSON.stringify(project)}, workers: 1 });
process.exit(0);
`,
  );
  const out = youngScript(
    'young_worker.mjs',
    `import { Worker } from 'node:worker_threads';
const w = new Worker(new URL('./young_thread.mjs', import.meta.url));
await new Promise((resolve) => w.once('exit', resolve));
const before = young();
burst();
console.log(JSON.stringify({ before, after: young() }));`,
  );
  const got = JSON.parse(out) as {
    before: number;
    after: number;
  };
  assert.ok(got.after >= 4 * got.before, `the burst grows it as V8 would: ${got.before} → ${got.after} bytes`);
});

test('bundle: a PDF is read by a worker thread, which compiles pdf.js from its own island only then', async () => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const n of [1, 2]) doc.addPage().drawText(`page ${n} words`, { x: 50, y: 700, font });
  writeFileSync(path.join(project, 'doc.pdf'), await doc.save());
  const script = path.join(dir, 'pdf.mjs');
  writeFileSync(
    script,
    `const lib = await import(process.argv[2]);
const rt = lib.createRuntime({ root: ${JSON.stringify(project)}, workers: 1, index: 'off' }).value;
const grep = await rt.call('grep', { pattern: 'TODO', path: 'src', output_mode: 'count' });
const pdf = await rt.call('read_file', { file_path: 'doc.pdf', pages: '2' });
console.log(JSON.stringify({ grep: grep.content, pdf: pdf.content, error: pdf.isError }));
await rt.close();
`,
  );
  const run = (copy: string) =>
    JSON.parse(execFileSync(process.execPath, [script, copy], { cwd: dir, encoding: 'utf8' })) as Record<
      string,
      unknown
    >;
  const read = run(bundle);
  assert.equal(read.grep, 'src/a.ts:1');
  assert.equal(read.error, false);
  assert.match(String(read.pdf), /^PDF "doc\.pdf": 2 pages, [\d,]+ bytes; pages 2-2 as text[\s\S]*page 2 words/);
  // The proof it came from the island: spoilt, the worker's grep still runs and the PDF fails.
  const spoilt = run(spoiled(['pdf']));
  assert.equal(spoilt.grep, 'src/a.ts:1');
  assert.equal(spoilt.error, true, String(spoilt.pdf));
});

test('bundle: a copy replaced under a running process says so instead of running another build', async () => {
  // The islands are read from the file when first used: a file rebuilt meanwhile holds other ones.
  const script = path.join(dir, 'replace.mjs');
  const copy = path.join(tempDir('mewcode-replaced-'), 'mewcode.mjs');
  copyFileSync(bundle, copy);
  writeFileSync(
    script,
    `import { writeFileSync, readFileSync } from 'node:fs';
const lib = await import(${JSON.stringify(copy)});
writeFileSync(${JSON.stringify(copy)}, readFileSync(${JSON.stringify(copy)}, 'latin1').replace(/mewcode-island \\w+ /g, 'mewcode-island 000000000000 '));
try { lib.createRuntime({ root: ${JSON.stringify(project)} }); console.log('ran'); } catch (e) { console.log(e.message); }
`,
  );
  const out = execFileSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
  assert.match(out, /does not hold this build's "mewcode" module: it was replaced since this process started/);
});

test('bundle: a worker stopped at a deadline is replaced by one that runs the same island', async () => {
  const script = path.join(dir, 'deadline.mjs');
  const tree = tempDir('mewcode-bundle-deadline-');
  writeTree(tree, { 'x.txt': `${'a'.repeat(36)}bx\n` });
  // The backtracking search is stopped by its own short signal; the pool then starts a new thread
  // (an evaluated script, not a file) and the next search, under the default deadline, runs on it.
  writeFileSync(
    script,
    `import { createRuntime } from './mewcode.mjs';
const rt = createRuntime({ root: ${JSON.stringify(tree)}, workers: 1, index: 'off' }).value;
const stuck = await rt.call('grep', { pattern: '(a|aa)+b$' }, { signal: AbortSignal.timeout(500) });
const next = await rt.call('grep', { pattern: 'a{5}', output_mode: 'count' });
console.log(JSON.stringify({ stuck: stuck.isError, next: next.content }));
await rt.close();
`,
  );
  const out = execFileSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), { stuck: true, next: 'x.txt:1' });
});

test('bundle: pictures — alone it shows one within the limits and names what a larger one needs; with sharp beside it, fits it', async () => {
  const small = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#208020' } })
    .png()
    .toBuffer();
  const big = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#802020' } })
    .png()
    .toBuffer();
  writeFileSync(path.join(project, 'small.png'), small);
  writeFileSync(path.join(project, 'big.png'), big);
  const shown = await node(['read', 'small.png']);
  assert.equal(shown.code, 0, shown.err);
  assert.match(shown.out, /^Image "small\.png": PNG, 200×100, [\d,]+ bytes\. Open the file to see it/);
  const refused = await node(['read', 'big.png']);
  assert.equal(refused.code, 1);
  assert.match(
    refused.out + refused.err,
    /3000×2000 is over the 1568 px and 1\.15 megapixels shown, and the image library \(sharp\) that would scale it down is not installed beside MewCode/,
  );
  // sharp installed beside the file (a node_modules next to it), found from the file's place.
  const beside = tempDir('mewcode-bundle-sharp-');
  copyFileSync(bundle, path.join(beside, 'mewcode.mjs'));
  symlinkSync(path.join(REPO, 'node_modules'), path.join(beside, 'node_modules'));
  const fitted = await node(['read', 'big.png'], '', path.join(beside, 'mewcode.mjs'));
  assert.equal(fitted.code, 0, fitted.err);
  assert.match(fitted.out, /^Image "big\.png": PNG, 3000×2000, .* shown as JPEG 1313×875/);
});
