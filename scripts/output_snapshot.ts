/**
 * Records what grep (every mode), glob, read_file and the CLI answer on a tree, one file per case, so
 * a refactoring can be shown to change no byte: run it before and after, then `diff -r` the two
 * directories. The spill file's random name is the only thing rewritten (to SPILL).
 *
 * Usage: node --import tsx scripts/output_snapshot.ts OUT_DIR [REF]
 * It records this repository as of REF (default HEAD, exported with git archive, so the files searched
 * stay the same while the code changes) and a generated tree (bench/fixture.ts plus odd files).
 */
import { execSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateFixture } from '../bench/fixture.ts';
import { createRuntime } from '../lib/runtime/runtime.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SPILL = /\/[^\s'"]*mewcode-spill[^\s'"]*/g;
/** A read record's fields that differ per run (where the tree was made, when, its inodes). */
const VOLATILE = new Set(['path', 'ino', 'mtimeMs', 'mtimeNs', 'ctimeNs', 'readAt', 'dev']);
const stable = (key: string, value: unknown) => (VOLATILE.has(key) && typeof value !== 'object' ? '*' : value);

type Call = [tool: string, input: Record<string, unknown>];

/** Tool calls whose model-facing answers are recorded (under the default output budget). */
function toolCases(kind: 'repo' | 'tree'): Call[] {
  const p = kind === 'repo' ? 'export function' : 'TODO';
  const dir = kind === 'repo' ? 'lib' : '.';
  const file = kind === 'repo' ? 'README.md' : 'odd/crlf.txt';
  const grep: Record<string, unknown>[] = [
    { pattern: p },
    { pattern: p, path: dir, head_limit: 0 },
    { pattern: p, output_mode: 'files_with_matches' },
    { pattern: p, output_mode: 'count', head_limit: 0 },
    { pattern: p, context: 2, head_limit: 40 },
    { pattern: p, before: 1, after: 3, head_limit: 40 },
    { pattern: 'ERROR \\d+', only_matching: true, head_limit: 30 },
    { pattern: 'e', invert_match: true, glob: '*.md', head_limit: 20 },
    { pattern: 'error', case_insensitive: true, max_count: 1, head_limit: 50 },
    { pattern: 'a.b(', fixed_strings: true },
    { pattern: '\\{\\n\\s+//', multiline: true, head_limit: 10 },
    { pattern: 'import', type: ['ts', 'md'], glob: ['!**/index*'], head_limit: 25 },
    { pattern: 'TODO', include_ignored: true, output_mode: 'count' },
    { pattern: 'TODO', hidden: true, output_mode: 'files_with_matches', head_limit: 0 },
    { pattern: 'TODO', no_ignore: true, output_mode: 'files_with_matches', head_limit: 5 },
    { pattern: 'line', path: file },
    { pattern: 'zzz_never_there_zzz' },
    { pattern: '(unclosed' },
    { pattern: 'x', path: 'no/such/dir' },
    { pattern: 'x', type: 'nosuchtype' },
    { pattern: 'x', glob: '{a,' },
    { pattern: '', output_mode: 'count', head_limit: 0 },
  ];
  const glob: Record<string, unknown>[] = [
    { pattern: '**/*.ts' },
    { pattern: '**/*', limit: 0 },
    { pattern: '*.md' },
    { pattern: '**/*.json', include_ignored: true, limit: 0 },
    { pattern: '**/*', extension: ['md', 'go'], limit: 7 },
    { pattern: '**', hidden: true, no_ignore: true, limit: 0 },
    { pattern: '**/*.nothing' },
    { pattern: '*', path: 'no/such/dir' },
  ];
  const read: Record<string, unknown>[] = [
    { file_path: file },
    { file_path: file, offset: 3, limit: 4 },
    { file_path: kind === 'repo' ? 'package-lock.json' : 'big0.txt' },
    { file_path: 'no/such/file' },
    { file_path: dir },
  ];
  if (kind === 'tree')
    read.push(
      { file_path: 'odd/long_line.txt' },
      { file_path: 'odd/utf16.txt' },
      { file_path: 'odd/binary.bin' },
      { file_path: 'odd/empty.txt' },
    );
  return [
    ...grep.map((i): Call => ['grep', i]),
    ...glob.map((i): Call => ['glob', i]),
    ...read.map((i): Call => ['read_file', i]),
  ];
}

/** CLI runs: what a person sees on stdout and stderr, and the exit code. */
function cliCases(kind: 'repo' | 'tree'): string[][] {
  const p = kind === 'repo' ? 'export function' : 'TODO';
  const file = kind === 'repo' ? 'README.md' : 'odd/crlf.txt';
  return [
    ['grep', p],
    ['grep', p, '--color', 'always'],
    ['grep', p, '-C', '1', '--color', 'always', '--head-limit', '30'],
    ['grep', p, '-l'],
    ['grep', p, '-c', '--color', 'always'],
    ['grep', 'ERROR \\d+', '-o', '--color', 'always', '--head-limit', '20'],
    ['grep', '-e', 'TODO', '-e', 'FIXME', '-w', '-i', '--head-limit', '20'],
    ['grep', 'import', '-t', 'ts', '-T', 'md', '-g', '!**/index*', '--head-limit', '20'],
    ['grep', p, '--json', '--head-limit', '3'],
    ['grep', p, '--head-limit', '5'],
    ['grep', 'zzz_never_there_zzz'],
    ['grep', '(unclosed'],
    ['grep', 'TODO', '-uu', '-l'],
    ['glob', '**/*.ts'],
    ['glob', '-e', 'md', '--limit', '5'],
    ['glob', '**/*', '--json', '--limit', '3'],
    ['glob', '*', 'no/such/dir'],
    ['read', file],
    ['read', file, '--offset', '2', '--limit', '3'],
    ['read', 'no/such/file'],
    ['call', 'grep', JSON.stringify({ pattern: p, head_limit: 3 })],
    ['call', 'glob', JSON.stringify({ pattern: '**/*.md', limit: 2 })],
  ];
}

/** Odd files beside the fixture: CRLF, UTF-16, a long line, a binary, an empty file, a control character in a name. */
function addOddFiles(root: string): void {
  const odd = path.join(root, 'odd');
  mkdirSync(odd, { recursive: true });
  writeFileSync(path.join(odd, 'crlf.txt'), 'line one\r\nline two TODO\r\nline three\r\n'.repeat(5));
  writeFileSync(path.join(odd, 'utf16.txt'), Buffer.from('\ufeffTODO in utf16\nsecond line\n', 'utf16le'));
  writeFileSync(path.join(odd, 'long_line.txt'), `TODO ${'x'.repeat(3000)} ERROR 12\nshort TODO\n`);
  writeFileSync(path.join(odd, 'binary.bin'), Buffer.from([84, 79, 68, 79, 0, 1, 2, 3]));
  writeFileSync(path.join(odd, 'empty.txt'), '');
  writeFileSync(path.join(odd, 'ctl\u0007name.ts'), 'export function bell() {} // TODO\n');
  writeFileSync(path.join(odd, 'noeol.md'), 'TODO without a final newline');
  chmodSync(path.join(odd, 'noeol.md'), 0o644);
}

async function recordTools(root: string, kind: 'repo' | 'tree', out: string): Promise<void> {
  const made = createRuntime({ root, home: null, workers: 2, index: 'off', prompt: 'none' });
  if (!made.ok) throw new Error(made.error);
  const rt = made.value;
  try {
    for (const [n, [tool, input]] of toolCases(kind).entries()) {
      const r = await rt.call(tool, input);
      const text = `${tool} ${JSON.stringify(input)}\n${JSON.stringify({ ...r, content: undefined }, stable, 1)}\n---\n${r.content}`;
      writeFileSync(path.join(out, `tool-${String(n).padStart(2, '0')}.txt`), text.replace(SPILL, 'SPILL'));
    }
  } finally {
    await rt.close();
  }
}

function recordCli(root: string, kind: 'repo' | 'tree', out: string): void {
  for (const [n, args] of cliCases(kind).entries()) {
    const r = spawnSync(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), path.join(REPO, 'mewcode.ts'), ...args],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '', HOME: tmpdir() },
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    const text = `${args.join(' ')}\nexit ${r.status}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`;
    writeFileSync(path.join(out, `cli-${String(n).padStart(2, '0')}.txt`), text.replace(SPILL, 'SPILL'));
  }
}

async function record(root: string, kind: 'repo' | 'tree', out: string): Promise<void> {
  mkdirSync(out, { recursive: true });
  await recordTools(root, kind, out);
  recordCli(root, kind, out);
}

const [outDir, ref = 'HEAD'] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: output_snapshot.ts OUT_DIR [REF]');
  process.exit(2);
}
const work = mkdtempSync(path.join(tmpdir(), 'mewcode-snapshot-'));
try {
  const repo = path.join(work, 'repo');
  mkdirSync(repo);
  execSync(`git archive ${JSON.stringify(ref)} | tar -x -C ${JSON.stringify(repo)}`, { cwd: REPO });
  await record(repo, 'repo', path.join(outDir, 'repo'));
  const tree = path.join(work, 'tree');
  generateFixture(tree, { files: 1500, seed: 7 });
  addOddFiles(tree);
  await record(tree, 'tree', path.join(outDir, 'tree'));
} finally {
  rmSync(work, { recursive: true, force: true });
}
