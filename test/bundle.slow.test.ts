import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runProgram } from './helpers/cli.ts';
import { startModel } from './helpers/fake_model.ts';
import { mcpClient } from './helpers/mcp_client.ts';
import { REPO, TSX } from './helpers/repo.ts';
import { tempDir, writeTree } from './helpers/temp.ts';

// The build, written into an empty directory (no node_modules anywhere above it) and run with plain node.
const dir = tempDir('mewcode-bundle-');
const bundle = path.join(dir, 'mewcode.mjs');
const metaFile = path.join(dir, 'meta.json');
execFileSync(
  process.execPath,
  ['--import', TSX, path.join(REPO, 'scripts/build.ts'), '--out', bundle, '--meta', metaFile],
  { cwd: REPO, stdio: 'pipe' },
);
const project = path.join(dir, 'project');
writeTree(project, { 'README.md': '# hello\n', 'src/a.ts': 'export const a = 1; // TODO\n' });
for (let i = 0; i < 2500; i++) writeTree(project, { [`many/f${i}.txt`]: `TODO ${i}\n` });
const PLAIN_ENV = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(ANTHROPIC|OPENAI)_|^NODE_OPTIONS$/.test(k)),
);

/** The bundle (or `program`) run by plain node from its own directory, without tsx or model keys. */
const node = (args: string[], input = '', program = bundle) =>
  runProgram(process.execPath, [program, '--root', project, ...args], { cwd: dir, env: PLAIN_ENV, input });

test('bundle: a directory that runs with plain node and no node_modules', async () => {
  assert.ok(statSync(path.join(dir, 'pool-worker.mjs')).isFile());
  assert.ok(statSync(path.join(dir, 'vendor/mvdan-sh.cjs')).size > 1_000_000);
  assert.match((await node(['--version'])).out, /^mewcode \d+\.\d+\.\d+\n$/);
});

test('bundle: --version, --help, grep and glob never load the model SDKs, MCP or the bash parser', async () => {
  // A copy without those files: if any of them were loaded, the command would fail to import it.
  const lean = tempDir('mewcode-lean-');
  for (const f of ['mewcode.mjs', 'lib.mjs', 'pool-worker.mjs', 'chunks', 'vendor'])
    cpSync(path.join(dir, f), path.join(lean, f), { recursive: true });
  const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as { outputs: Record<string, { inputs: object }> };
  const heavy = /node_modules\/(@anthropic-ai|openai|@modelcontextprotocol|ajv|zod)\//;
  let removed = 0;
  for (const [out, o] of Object.entries(meta.outputs)) {
    if (!Object.keys(o.inputs).some((i) => heavy.test(i))) continue;
    rmSync(path.join(lean, path.relative(dir, path.resolve(REPO, out))));
    removed++;
  }
  rmSync(path.join(lean, 'vendor'), { recursive: true });
  assert.ok(removed >= 3, `only ${removed} chunks hold the SDKs and MCP`);
  const program = path.join(lean, 'mewcode.mjs');
  assert.match((await node(['--version'], '', program)).out, /^mewcode /);
  assert.match((await node(['--help'], '', program)).out, /grep/);
  const g = await node(['grep', 'TODO', '-c', '--head-limit', '0', '--workers', '2'], '', program);
  assert.equal(g.out.trim().split('\n').length, 2501, g.err);
  assert.deepEqual(await node(['glob', 'src/**'], '', program), { code: 0, out: 'src/a.ts\n', err: '' });
});

test('bundle: grep and glob, through its own worker threads', async () => {
  const g = await node(['grep', 'TODO', '--head-limit', '2', '--workers', '2']);
  assert.equal(g.code, 0, g.err);
  assert.equal(g.out.split('\n').slice(0, 2).join('\n'), 'many/f0.txt:1:TODO 0\nmany/f1.txt:1:TODO 1');
  const c = await node(['grep', 'TODO', '-c', '--head-limit', '0', '--workers', '2']);
  assert.equal(c.out.trim().split('\n').length, 2501);
  assert.deepEqual(await node(['glob', 'src/**']), { code: 0, out: 'src/a.ts\n', err: '' });
});

test('bundle: call and batch', async () => {
  assert.deepEqual(await node(['call', 'read_file', '{"file_path":"README.md"}']), {
    code: 0,
    out: '     1\t# hello\n',
    err: '',
  });
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

test('bundle: serves MCP over stdio', async () => {
  const { client } = await mcpClient({
    root: project,
    program: { command: process.execPath, args: [bundle] },
    cwd: dir,
  });
  const { tools } = await client.listTools();
  assert.equal(tools.length, 10);
  const r = await client.callTool({ name: 'glob', arguments: { pattern: 'src/*' } });
  assert.equal((r.content as { text: string }[])[0]?.text, 'src/a.ts');
});

test('bundle: imported as a library by a monorepo script, without running the CLI', async () => {
  const { writeFileSync } = await import('node:fs');
  const script = path.join(dir, 'script.mjs');
  writeFileSync(
    script,
    `import { createRuntime } from './lib.mjs';
const made = createRuntime({ root: ${JSON.stringify(project)}, workers: 1 });
if (!made.ok) throw new Error(made.error);
const r = await made.value.call('grep', { pattern: 'TODO', path: 'src' });
const batch = await made.value.batch([{ name: 'glob', input: { pattern: 'src/*' } }, { name: 'read_file', input: { file_path: 'README.md' } }]);
console.log(JSON.stringify({ grep: r.content, batch: batch.map((b) => b.content), defs: made.value.definitions('openai').length }));
await made.value.close();
`,
  );
  const out = execFileSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), {
    grep: 'src/a.ts:1:export const a = 1; // TODO',
    batch: ['src/a.ts', '     1\t# hello'],
    defs: 10,
  });
});
