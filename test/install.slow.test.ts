import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runProgram } from './helpers/cli.ts';
import { mcpClient } from './helpers/mcp_client.ts';
import { REPO, TSX } from './helpers/repo.ts';
import { tempDir, writeTree } from './helpers/temp.ts';

// The installed `mewcode` command, run from directories that have nothing to do with the checkout, the
// way npm sets it up: a global prefix whose bin/mewcode links to the package's bin/mewcode.mjs.
const project = tempDir('mewcode-install-project-');
writeTree(project, { 'src/a.ts': 'export const a = 1; // TODO\n', 'README.md': '# hi\n' });
const elsewhere = tempDir('mewcode-install-cwd-');

/** An environment without the checkout on any path: no NODE_OPTIONS (tsx), no NODE_PATH, no API keys. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(ANTHROPIC|OPENAI)_|^NODE_OPTIONS$|^NODE_PATH$|^npm_/.test(k)),
  );
  return { ...env, ...extra };
}

const run = (program: string, args: string[], env: NodeJS.ProcessEnv) =>
  runProgram(program, args, { cwd: elsewhere, env });

async function servesMcp(command: string, env: NodeJS.ProcessEnv): Promise<void> {
  const { client } = await mcpClient({
    program: { command },
    args: ['mcp', '--root', project],
    cwd: elsewhere,
    env: env as Record<string, string>,
  });
  const r = await client.callTool({ name: 'grep', arguments: { pattern: 'TODO' } });
  assert.equal((r.content as { text: string }[])[0]?.text, 'src/a.ts:1:export const a = 1; // TODO');
  await client.close();
}

test('install: `npm i -g <checkout>` gives a mewcode command that works from any directory', async () => {
  const prefix = tempDir('mewcode-install-prefix-');
  // A folder install links the checkout; --ignore-scripts: without `prepare` no bundle is built, so
  // the command runs the sources through tsx, as a checkout without dist/ does.
  execFileSync(
    'npm',
    ['install', '-g', '--prefix', prefix, '--offline', '--ignore-scripts', '--no-audit', '--no-fund', REPO],
    {
      cwd: elsewhere,
      stdio: 'pipe',
      env: cleanEnv(),
    },
  );
  const bin = path.join(prefix, 'bin/mewcode');
  const env = cleanEnv({ MEWCODE_FROM_SOURCE: '1' });
  assert.match((await run(bin, ['--version'], env)).out, /^mewcode \d+\.\d+\.\d+\n$/);
  const g = await run(bin, ['--root', project, 'grep', '-n', 'TODO'], env);
  assert.equal(g.out, 'src/a.ts:1:export const a = 1; // TODO\n', g.err);
  // The README's mcpServers example: `"command": "mewcode", "args": ["mcp", "--root", …]`.
  await servesMcp(bin, env);
});

/**
 * What `npm pack` puts in the tarball (package.json "files"), with dist/ built as `prepare` does,
 * extracted into `into`, as npm installs it. Dependencies are not installed: the bundle needs none.
 */
function packInto(into: string): void {
  const pkgDir = tempDir('mewcode-install-pkg-');
  for (const f of ['bin', 'lib', 'scripts', 'mewcode.ts', 'package.json', 'README.md'])
    cpSync(path.join(REPO, f), path.join(pkgDir, f), { recursive: true });
  execFileSync(
    process.execPath,
    ['--import', TSX, path.join(REPO, 'scripts/build.ts'), '--out', path.join(pkgDir, 'dist/mewcode.mjs')],
    { cwd: REPO, stdio: 'pipe' },
  );
  const packed = tempDir('mewcode-install-tgz-');
  const tgz = execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', packed], {
    cwd: pkgDir,
    encoding: 'utf8',
    env: cleanEnv(),
  })
    .trim()
    .split('\n')
    .at(-1) as string;
  mkdirSync(into, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(packed, tgz), '-C', into, '--strip-components=1']);
}

test('install: `import { createRuntime } from "mewcode"` works under plain node, and types point at the sources', async () => {
  // A project with the packed package in its node_modules and nothing else: plain node, no tsx.
  const consumer = tempDir('mewcode-install-consumer-');
  const installed = path.join(consumer, 'node_modules/mewcode');
  packInto(installed);
  writeTree(consumer, {
    'package.json': '{ "type": "module" }\n',
    'use.mjs': [
      "import { createRuntime } from 'mewcode';",
      "const lib = await import('mewcode');",
      "const bundle = await import('mewcode/bundle');",
      'const made = createRuntime({ root: process.argv[2], home: null, workers: 0 });',
      'if (!made.ok) throw new Error(made.error);',
      "const r = await made.value.call('grep', { pattern: 'TODO', output_mode: 'files_with_matches' });",
      'await made.value.close();',
      'console.log(JSON.stringify({ names: Object.keys(lib).sort(), same: lib.createRuntime === bundle.createRuntime, content: r.content }));',
    ].join('\n'),
  });
  const r = await runProgram(process.execPath, ['use.mjs', project], { cwd: consumer, env: cleanEnv() });
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), {
    names: [
      'MODEL_WORDING',
      'auditFiles',
      'auditStats',
      'createRuntime',
      'defaultAuditPath',
      'inspectTrust',
      'makeProvider',
      'openAuditLog',
      'openTelemetry',
      'runAgent',
      'runCli',
    ],
    same: true,
    content: 'src/a.ts',
  });
  // TypeScript reads the `types` condition: the sources, which declare what the bundle exports.
  const exported = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')).exports['.'];
  assert.deepEqual(Object.keys(exported), ['types', 'default']);
  assert.ok(existsSync(path.join(installed, exported.types)), exported.types);
});

test('install: the packed package runs its bundle with no node_modules anywhere', async () => {
  // Extracted where `npm i -g` puts it; a bundle judged stale would fall back to tsx, which is not there, and fail.
  const prefix = tempDir('mewcode-install-prefix-');
  const installed = path.join(prefix, 'lib/node_modules/mewcode');
  packInto(installed);
  mkdirSync(path.join(prefix, 'bin'));
  const bin = path.join(prefix, 'bin/mewcode');
  symlinkSync('../lib/node_modules/mewcode/bin/mewcode.mjs', bin);
  const env = cleanEnv();
  assert.match((await run(bin, ['--version'], env)).out, /^mewcode \d+\.\d+\.\d+\n$/);
  const g = await run(bin, ['--root', project, 'grep', '-n', 'TODO', '--workers', '2'], env);
  assert.equal(g.out, 'src/a.ts:1:export const a = 1; // TODO\n', g.err);
  await servesMcp(bin, env);

  // `tsx mewcode.ts` hands over to the current bundle: the sources could not run here (no dependencies installed).
  const tsx = (args: string[]) =>
    run(process.execPath, ['--import', TSX, path.join(installed, 'mewcode.ts'), ...args], env);
  const viaTsx = await tsx(['--root', project, 'grep', '-n', 'TODO']);
  assert.equal(viaTsx.out, 'src/a.ts:1:export const a = 1; // TODO\n', viaTsx.err);
  // A source modified after the build makes dist/ stale: then the sources run, and here they cannot.
  utimesSync(path.join(installed, 'lib/search/walk.ts'), new Date(), new Date());
  const stale = await tsx(['--root', project, 'grep', 'TODO']);
  assert.notEqual(stale.code, 0);
  assert.match(stale.err, /Cannot find package/);
});
