import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO, TSX, tempDir, writeTree } from './helpers.ts';

const root = tempDir();
writeTree(root, { 'a.txt': 'one\ntwo\nthree\n', 'dir/x': '' });

function cli(args: string[], input?: string) {
  const r = spawnSync(process.execPath, ['--import', TSX, path.join(REPO, 'mewcode.ts'), ...args], {
    cwd: root,
    encoding: 'utf8',
    input,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('cli: call prints the content and exits 0', () => {
  assert.deepEqual(cli(['call', 'read_file', '{"file_path":"a.txt"}']), {
    code: 0,
    out: '     1\tone\n     2\ttwo\n     3\tthree\n',
    err: '',
  });
});

test('cli: call exits 1 on an error result, and --json prints the whole result', () => {
  const r = cli(['call', 'read_file', '{"file_path":"dir"}', '--json']);
  assert.equal(r.code, 1);
  assert.deepEqual(JSON.parse(r.out), {
    content: 'Cannot read "dir": it is a directory. List its files with glob (pattern "*", path "dir").',
    isError: true,
    code: 'is_directory',
  });
});

test('cli: call reads JSON from stdin with -', () => {
  assert.equal(
    cli(['call', 'read_file', '-'], '{"file_path":"a.txt","limit":1}').out,
    '     1\tone\n[truncated: showing lines 1-1 of 3; continue with offset=2]\n',
  );
});

test('cli: read takes --offset and --limit, and --root', () => {
  const other = tempDir();
  writeTree(other, { 'b.txt': 'x\ny\nz\n' });
  assert.equal(
    cli(['read', 'a.txt', '--offset', '2', '--limit', '1']).out,
    '     2\ttwo\n[truncated: showing lines 2-2 of 3; continue with offset=3]\n',
  );
  assert.equal(cli(['--root', other, 'read', 'b.txt', '--offset', '3']).out, '     3\tz\n');
});

test('cli: tools lists the tools and prints each provider format', () => {
  assert.match(
    cli(['tools']).out,
    /^read_file {2}read {3}Reads a text file.*\nglob {7}read {3}Finds files.*\ngrep {7}read {3}Searches file contents/,
  );
  for (const format of ['anthropic', 'openai', 'openai-strict']) {
    const r = cli(['tools', '--format', format]);
    assert.equal(r.code, 0);
    assert.deepEqual(
      JSON.parse(r.out),
      JSON.parse(readFileSync(path.join(REPO, 'test/snapshots', `${format}.json`), 'utf8')),
    );
  }
});

test('cli: --version and --help', () => {
  const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
  assert.deepEqual(cli(['--version']), { code: 0, out: `mewcode ${pkg.version}\n`, err: '' });
  const help = cli(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /^mewcode — /);
  assert.match(help.out, /mewcode call <tool> '<json>'/);
});

const usageErrors: [string[], RegExp][] = [
  [[], /^Usage:/m],
  [
    ['frobnicate'],
    /^mewcode: Unknown command "frobnicate"\. Commands: call, read, grep, glob, tools, bench\. See mewcode --help\.\n$/,
  ],
  [['read', 'a.txt', '--bogus'], /^mewcode: Unknown option '--bogus'\. See mewcode --help\.\n$/],
  [
    ['read', 'a.txt', '--format', 'x'],
    /^mewcode: The flag --format does not apply to "read"\. See mewcode --help\.\n$/,
  ],
  [['read', 'a.txt', '--offset', '0'], /^mewcode: --offset must be a positive integer, not "0"\.\n$/],
  [['read', 'a.txt', '--limit', 'ten'], /^mewcode: --limit must be a positive integer, not "ten"\.\n$/],
  [['read'], /^mewcode: read needs a file path\.\n$/],
  [['call'], /^mewcode: call needs a tool name\. Tools: read_file, glob, grep\.\n$/],
  [['call', 'read_file', '{nope'], /^mewcode: The arguments for read_file are not valid JSON: /],
  [['call', 'read_file', '{}', 'extra'], /^mewcode: call takes a tool name and one JSON argument; unexpected "extra"/],
  [
    ['tools', '--format', 'gemini'],
    /^mewcode: --format must be one of anthropic, openai, openai-strict, not "gemini"\.\n$/,
  ],
  [['--root', '/nonexistent/place', 'read', 'a.txt'], /^mewcode: The root "\/nonexistent\/place" does not exist/],
];
for (const [args, message] of usageErrors) {
  test(`cli: ${JSON.stringify(args)} is a usage error with exit 2`, () => {
    const r = cli(args);
    assert.equal(r.code, 2);
    assert.equal(r.out, '');
    assert.match(r.err, message);
  });
}

test('cli: an unknown tool is an error result listing the tools, exit 1', () => {
  assert.deepEqual(cli(['call', 'nope', '{}']), {
    code: 1,
    out: 'There is no tool named "nope". Available tools: read_file, glob, grep.\n',
    err: '',
  });
});
