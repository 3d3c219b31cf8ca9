import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliSync } from './helpers/cli.ts';
import { REPO } from './helpers/repo.ts';
import { tempDir, writeTree } from './helpers/temp.ts';

const root = tempDir();
writeTree(root, { 'a.txt': 'one\ntwo\nthree\n', 'dir/x': '' });

// Without model keys (runCli's environment): a word that is not a command is a task, which needs one.
const cli = (args: string[], input?: string) =>
  runCliSync(args, { cwd: root, ...(input !== undefined ? { input } : {}) });

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
    meta: {
      policy: { allow: true, by: 'default', reason: 'reads inside the root are allowed', source: 'default read' },
    },
  });
});

test('cli: --verbose shows each permission decision on stderr; a refusal names the flag', () => {
  const own = tempDir();
  const cli2 = (args: string[]) => cli(['--root', own, ...args]);
  const r = cli2(['call', 'write_file', '{"file_path":"new.txt","content":"x"}', '--verbose', '--json']);
  assert.equal(r.code, 1);
  assert.match(
    r.err,
    /^policy: deny write_file \(prompt: Permission needed: write_file wants to write "new\.txt", and there is no terminal to ask\. Run again with --allow-write=new\.txt\.\)\n$/,
  );
  assert.equal(JSON.parse(r.out).meta.policy.by, 'prompt');
  const ok = cli2([
    'call',
    'write_file',
    '{"file_path":"new.txt","content":"x"}',
    '--allow-write=new.txt',
    '--verbose',
  ]);
  assert.deepEqual(
    [ok.code, ok.out, ok.err],
    [0, 'Created "new.txt" (1 bytes, 1 lines).\n', 'policy: allow write_file (flag: --allow-write)\n'],
  );
  assert.equal(cli2(['call', 'bash', '{"command":"echo hi"}', '--mode', 'plan']).code, 1);
  assert.match(
    cli2(['call', 'bash', '{"command":"echo hi"}', '--mode', 'yolo']).err,
    /--mode must be one of default, acceptEdits, plan, bypass, not "yolo"/,
  );
  assert.equal(cli2(['call', 'bash', '{"command":"echo hi"}', '-A']).out, 'exit_code: 0\nhi\n');
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
  // The footer is not a line of the file: it goes to stderr, naming the flag.
  assert.deepEqual(cli(['read', 'a.txt', '--offset', '2', '--limit', '1']), {
    code: 0,
    out: '     2\ttwo\n',
    err: '[truncated: showing lines 2-2 of 3; continue with --offset 3]\n',
  });
  assert.equal(cli(['--root', other, 'read', 'b.txt', '--offset', '3']).out, '     3\tz\n');
});

test('cli: tools lists the tools and prints each provider format', () => {
  const names = cli(['tools'])
    .out.split('\n')
    .filter(Boolean)
    .map((l) => l.split(/\s+/).slice(0, 2).join(' '));
  assert.deepEqual(names, [
    'read_file read',
    'glob read',
    'grep read',
    'load_skill read',
    'bash_output read',
    'web_fetch read',
    'todo_write read',
    'write_file write',
    'edit_file write',
    'multi_edit write',
    'apply_patch write',
    'notebook_edit write',
    'bash write',
    'kill_bash write',
    'write_stdin write',
    'install_skill write',
  ]);
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
  [['frobnicate'], /^mewcode: "frobnicate" is not a command\. Commands: .*mewcode run frobnicate\n$/],
  [['read', 'a.txt', '--bogus'], /^mewcode: Unknown flag --bogus\. See mewcode read --help\.\n$/],
  [['grep', '--hiden', 'x'], /^mewcode: Unknown flag --hiden\. Did you mean --hidden\? See mewcode grep --help\.\n$/],
  [['glob', '--limt', '1', 'x'], /^mewcode: Unknown flag --limt\. Did you mean --limit\? /],
  [['grep', '-P', 'x'], /^mewcode: ripgrep's -P is not supported: MewCode has one regex engine/],
  [['grep', '--max-depth', '2', 'x'], /^mewcode: ripgrep's --max-depth is not supported: /],
  [
    ['read', 'a.txt', '--format', 'x'],
    /^mewcode: The flag --format does not apply to "read"\. See mewcode read --help\.\n$/,
  ],
  [['read', 'a.txt', '--offset', '0'], /^mewcode: --offset must be a positive integer, not "0"\.\n$/],
  [['read', 'a.txt', '--limit', 'ten'], /^mewcode: --limit must be a positive integer, not "ten"\.\n$/],
  [['read'], /^mewcode: read needs a file path\.\n$/],
  [
    ['call'],
    /^mewcode: call needs a tool name\. Tools: read_file, glob, grep, load_skill, bash_output, web_fetch, todo_write, write_file, edit_file, multi_edit, apply_patch, notebook_edit, bash, kill_bash, write_stdin, install_skill\.\n$/,
  ],
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

test('cli: an unknown tool is an error result listing the tools, on stderr, exit 1', () => {
  assert.deepEqual(cli(['call', 'nope', '{}']), {
    code: 1,
    out: '',
    err: 'There is no tool named "nope". Available tools: read_file, glob, grep, load_skill, bash_output, web_fetch, todo_write, write_file, edit_file, multi_edit, apply_patch, notebook_edit, bash, kill_bash, write_stdin, install_skill.\n',
  });
});

test('cli: grep and glob exit like ripgrep: 0 found, 1 nothing, 2 an error', () => {
  const found = cli(['grep', 'two', '-n', '-C', '1']);
  assert.deepEqual(found, { code: 0, out: 'a.txt-1-one\na.txt:2:two\na.txt-3-three\n', err: '' });
  assert.equal(cli(['grep', 'zzz']).code, 1);
  assert.equal(cli(['grep', '(']).code, 2);
  assert.deepEqual(cli(['grep', 'TWO', '-i', '-l']), { code: 0, out: 'a.txt\n', err: '' });
  assert.deepEqual(cli(['grep', 'o', '-c']), { code: 0, out: 'a.txt:2\n', err: '' });
  assert.deepEqual(cli(['glob', '*.txt']), { code: 0, out: 'a.txt\n', err: '' });
  assert.equal(cli(['glob', '*.nothing']).code, 1);
  assert.equal(cli(['glob', '[bad']).code, 2);
  // As rg 13: -c beats -l, whichever comes first; MewCode's --output-mode does not combine with either.
  assert.deepEqual(cli(['grep', 'o', '-l', '-c']), { code: 0, out: 'a.txt:2\n', err: '' });
  assert.equal(cli(['grep', 'x', '-l', '--output-mode', 'count']).code, 2);
  assert.match(cli(['glob', '*', '--sort', 'size']).err, /--sort must be path or mtime/);
});

test('cli: batch runs reads together and writes in order, answering a JSON array', () => {
  const dir = tempDir();
  writeTree(dir, { 'b.txt': 'bee\n' });
  const jsonl = [
    { name: 'read_file', input: { file_path: 'b.txt' } },
    { name: 'grep', input: { pattern: 'bee' } },
    { name: 'edit_file', input: { file_path: 'b.txt', old_string: 'bee', new_string: 'wasp' } },
    { name: 'read_file', input: { file_path: 'b.txt' } },
  ]
    .map((c) => JSON.stringify(c))
    .join('\n');
  const r = runCliSync(['--root', dir, 'batch', '-', '--allow-write'], { input: jsonl });
  assert.equal(r.code, 0, r.err);
  const out = JSON.parse(r.out) as { name: string; content: string; isError: boolean }[];
  assert.deepEqual(
    out.map((o) => [o.name, o.isError, o.content.split('\n')[0]]),
    [
      ['read_file', false, '     1\tbee'],
      ['grep', false, 'b.txt:1:bee'],
      ['edit_file', false, 'Edited "b.txt": 1 replacement (line 1).'],
      ['read_file', false, '     1\twasp'],
    ],
  );
  const bad = runCliSync(['batch', '-'], { input: '[{"input":{}}]', cwd: dir });
  assert.equal(bad.code, 2);
  assert.match(bad.err, /Batch item 1 must be an object \{"name": "<tool>", "input": \{\.\.\.\}\}/);
});
