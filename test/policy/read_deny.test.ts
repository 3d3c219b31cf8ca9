/**
 * A read rule reaches every read tool: read_file, grep (a file, a directory, the root), glob,
 * load_skill, the CLI and the MCP server, whatever read tool the rule names and in every form of its
 * pattern (plain, glob, `=`, `~`, negated). Real files, real settings files, real runtimes.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import type { AnyTool } from '../../lib/core/tool.ts';
import { createGate } from '../../lib/policy/path_gate.ts';
import { READ_RULE_TOOLS, readDenyOf } from '../../lib/policy/read_deny.ts';
import { parseRule } from '../../lib/policy/rules.ts';
import type { RuntimeOptions } from '../../lib/runtime/runtime.ts';
import { deniedByRules } from '../../lib/sandbox/view.ts';
import { TOOL_NAMES, TOOLS } from '../../lib/tools/mod.ts';
import { READ_TOOLS } from '../../lib/tools/read_tools.ts';
import { runCliSync } from '../helpers/cli.ts';
import { mcpClient, resultText } from '../helpers/mcp_client.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const skill = (name: string) => `---\nname: ${name}\ndescription: about ${name}\n---\nbody of ${name}\n`;
const FILES = {
  'secret/key.txt': 'TOPSECRET\n',
  'secret/deep/k.pem': 'TOP deep pem\n',
  'pub/a.txt': 'TOP pub\n',
  'pub/b.pem': 'TOP pub pem\n',
  'other.txt': 'TOP other\n',
  '.mewcode/skills/sec/SKILL.md': skill('sec'),
  '.mewcode/skills/fine/SKILL.md': skill('fine'),
};

/** A real root with FILES and these rules in its project settings (deny and ask need no trust). */
function project(permissions: { deny?: string[]; ask?: string[] }, options: Omit<RuntimeOptions, 'root'> = {}) {
  const root = tempDir();
  writeTree(root, { ...FILES, '.mewcode/settings.json': JSON.stringify({ permissions }) });
  const rt = runtimeAt(root, { workers: 0, ...options });
  after(() => rt.close());
  return { root, rt };
}

const WORKERS = [0, 2] as const;

test('read rules: the list of read tools is the registry’s', () => {
  // Every read-only tool but bash_output, which reads a background job's output, web_fetch, which
  // reads the web, and todo_write, which keeps the plan: none reads the tree.
  const notTree = ['bash_output', 'web_fetch', 'todo_write'];
  assert.deepEqual(
    READ_TOOLS.map((t) => t.name).filter((n) => !notTree.includes(n)),
    READ_RULE_TOOLS,
  );
  // …and exactly the tools that say they read files (the fact lives on each tool).
  assert.deepEqual(
    (TOOLS as readonly AnyTool[]).filter((t) => t.readsFiles).map((t) => t.name),
    READ_RULE_TOOLS,
  );
});

for (const workers of WORKERS)
  test(`read rules: deny read_file(secret) stops every read tool under secret/ (workers: ${workers})`, async () => {
    const { rt } = project({ deny: ['read_file(secret)'] }, { workers });
    for (const [tool, input] of [
      ['read_file', { file_path: 'secret/key.txt' }],
      ['grep', { pattern: 'TOP', path: 'secret/key.txt' }],
      ['grep', { pattern: 'TOP', path: 'secret' }],
      ['grep', { pattern: 'TOP', path: 'secret/deep' }],
      ['glob', { pattern: '**/*', path: 'secret' }],
    ] as const) {
      const r = await rt.call(tool, input);
      assert.equal(r.code, 'permission_denied', `${tool} ${JSON.stringify(input)}: ${r.content}`);
      assert.match(r.content, /\(the project rule deny "read_file\(secret\)"\)/);
    }
    const root = await rt.call('grep', { pattern: 'TOP' });
    assert.equal(
      root.content,
      'other.txt:1:TOP other\npub/a.txt:1:TOP pub\npub/b.pem:1:TOP pub pem\n' +
        '[note: skipped 1 directory hidden; pass include_ignored: true to search them]\n' +
        '[note: skipped 1 directory denied by the permissions]',
    );
    const names = await rt.call('glob', { pattern: '**/*', include_ignored: true });
    assert.ok(!names.content.includes('secret'), names.content);
    assert.equal((await rt.call('read_file', { file_path: 'pub/a.txt' })).isError, false);
  });

test('read rules: a rule naming any read tool reaches read_file, grep and glob alike', async () => {
  for (const tool of ['grep', 'glob', 'load_skill', '*']) {
    const { rt } = project({ deny: [`${tool}(secret)`] });
    for (const [name, input] of [
      ['read_file', { file_path: 'secret/key.txt' }],
      ['grep', { pattern: 'TOP', path: 'secret/key.txt' }],
      ['glob', { pattern: '*', path: 'secret' }],
    ] as const)
      assert.equal((await rt.call(name, input)).code, 'permission_denied', `${tool}(secret) → ${name}`);
    assert.ok(!(await rt.call('grep', { pattern: 'TOP' })).content.includes('TOPSECRET'), `${tool}(secret) → grep`);
  }
});

test('read rules: a negated rule denies everything outside its pattern, to every read tool', async () => {
  const { rt } = project({ deny: ['read_file(!pub/**)'] });
  // The root is outside pub/: searching it is refused, not quietly narrowed.
  for (const [tool, input] of [
    ['read_file', { file_path: 'other.txt' }],
    ['grep', { pattern: 'TOP', path: 'secret/key.txt' }],
    ['grep', { pattern: 'TOP', path: 'secret' }],
    ['grep', { pattern: 'TOP' }],
    ['glob', { pattern: '**/*' }],
    ['load_skill', { name: 'fine' }],
  ] as const) {
    const r = await rt.call(tool, input);
    assert.equal(r.code, 'permission_denied', `${tool} ${JSON.stringify(input)}: ${r.content}`);
    assert.match(r.content, /the project rule deny "read_file\(!pub\/\*\*\)"/);
  }
  assert.equal(
    (await rt.call('grep', { pattern: 'TOP', path: 'pub' })).content,
    'pub/a.txt:1:TOP pub\npub/b.pem:1:TOP pub pem',
  );
  assert.equal((await rt.call('glob', { pattern: '*', path: 'pub' })).content, 'pub/a.txt\npub/b.pem');
  assert.equal((await rt.call('read_file', { file_path: 'pub/a.txt' })).content, '     1\tTOP pub');
});

for (const workers of WORKERS)
  test(`read rules: a negated rule skips, file by file, what a search meets outside it (workers: ${workers})`, async () => {
    // Allowed: src itself and the .ts files at any depth below it. A directory is never skipped by a
    // negated rule (sub/ does not match, its c.ts does); b.md is.
    const { root } = project({});
    writeTree(root, {
      '.mewcode/settings.json': JSON.stringify({ permissions: { deny: ['grep(!{src,src/**/*.ts})'] } }),
      'src/a.ts': 'TOP a\n',
      'src/b.md': 'TOP b\n',
      'src/sub/c.ts': 'TOP c\n',
      'src/sub/d.txt': 'TOP d\n',
    });
    const rt = runtimeAt(root, { workers });
    after(() => rt.close());
    assert.equal(
      (await rt.call('grep', { pattern: 'TOP', path: 'src' })).content,
      'src/a.ts:1:TOP a\nsrc/sub/c.ts:1:TOP c\n[note: skipped 2 files denied by the permissions]',
    );
    assert.equal((await rt.call('glob', { pattern: '**/*', path: 'src' })).content.split('\n')[1], 'src/sub/c.ts');
    assert.equal((await rt.call('read_file', { file_path: 'src/b.md' })).code, 'permission_denied');
  });

test('read rules: =exact and ~regex forms, plain and negated, reach searches too', async () => {
  const exact = project({ deny: ['grep(=secret/key.txt)'] }).rt;
  assert.equal((await exact.call('read_file', { file_path: 'secret/key.txt' })).code, 'permission_denied');
  const all = await exact.call('grep', { pattern: 'TOP' });
  assert.ok(!all.content.includes('TOPSECRET') && all.content.includes('secret/deep/k.pem'), all.content);

  const regex = project({ deny: ['glob(~\\.pem$)'] }).rt;
  assert.equal((await regex.call('read_file', { file_path: 'pub/b.pem' })).code, 'permission_denied');
  assert.equal((await regex.call('grep', { pattern: 'TOP', path: 'pub/b.pem' })).code, 'permission_denied');
  const noPem = await regex.call('grep', { pattern: 'TOP', output_mode: 'files_with_matches' });
  assert.equal(noPem.content.split('\n[note')[0], 'other.txt\npub/a.txt\nsecret/key.txt');

  // Everything but the root itself and pub/: a search of the root is allowed and keeps to pub/.
  const only = project({ deny: ['read_file(!~^(\\.|pub(/.*)?)$)'] }).rt;
  assert.equal(
    (await only.call('grep', { pattern: 'TOP' })).content,
    'pub/a.txt:1:TOP pub\npub/b.pem:1:TOP pub pem\n' +
      '[note: skipped 1 directory hidden; pass include_ignored: true to search them]\n' +
      '[note: skipped 3 files denied by the permissions]',
  );
  assert.equal((await only.call('read_file', { file_path: 'other.txt' })).code, 'permission_denied');
});

test('read rules: what an ask rule covers is asked for by path, and skipped by a search (but not in bypass)', async () => {
  const { rt } = project({ ask: ['read_file(secret)'] });
  const direct = await rt.call('grep', { pattern: 'TOP', path: 'secret/key.txt' });
  assert.equal(direct.code, 'permission_denied');
  assert.match(
    direct.content,
    /^Permission needed: grep wants to read "secret\/key\.txt", and there is no prompt to ask\. Grant it with createRuntime/,
  );
  const all = await rt.call('grep', { pattern: 'TOP' });
  assert.ok(!all.content.includes('secret/'), all.content);
  const bypass = project({ ask: ['read_file(secret)'] }, { mode: 'bypass' }).rt;
  assert.match((await bypass.call('grep', { pattern: 'TOP' })).content, /secret\/key\.txt:1:TOPSECRET/);

  // Asked and allowed: the answer covers what lies below the search root; a search above it still skips it.
  const asked: string[] = [];
  const yes = project(
    { ask: ['read_file(secret)'] },
    {
      prompt: {
        ask: async (request) => {
          asked.push(`${request.tool} ${request.asks.map((a) => `${a.kind} ${a.subject}`).join(', ')}`);
          return 'once';
        },
      },
    },
  ).rt;
  assert.equal(
    (await yes.call('grep', { pattern: 'TOP', path: 'secret' })).content,
    'secret/deep/k.pem:1:TOP deep pem\nsecret/key.txt:1:TOPSECRET',
  );
  assert.deepEqual(asked, ['grep read secret']);
  assert.ok(!(await yes.call('grep', { pattern: 'TOP' })).content.includes('secret/'));
  assert.equal(asked.length, 1, 'a search of the root is not asked about, and skips secret/');
});

test('read rules: load_skill is a read of .mewcode/skills/<name>/SKILL.md; a denied skill is not even listed', async () => {
  const { rt } = project({ deny: ['read_file(.mewcode/skills/sec)'] });
  const r = await rt.call('load_skill', { name: 'sec' });
  assert.equal(r.code, 'permission_denied');
  assert.match(r.content, /^Permission denied: load_skill may not read "\.mewcode\/skills\/sec\/SKILL\.md"/);
  assert.deepEqual(
    rt.skills.list().map((s) => s.name),
    ['fine'],
  );
  assert.deepEqual((await rt.call('load_skill', { name: 'fine' })).meta?.skill, { name: 'fine', body: 'body of fine' });

  const asked = project({ ask: ['grep(**/SKILL.md)'] }).rt;
  const ask = await asked.call('load_skill', { name: 'fine' });
  assert.match(ask.content, /^Permission needed: load_skill wants to read "\.mewcode\/skills\/fine\/SKILL\.md"/);

  // A skill in a directory of another name would escape a rule about its name: it is refused.
  const { root } = project({ deny: ['read_file(.mewcode/skills/renamed)'] });
  writeTree(root, { '.mewcode/skills/elsewhere/SKILL.md': skill('renamed') });
  const moved = runtimeAt(root, { workers: 0 });
  assert.equal((await moved.call('load_skill', { name: 'renamed' })).code, 'permission_denied');
  writeTree(root, { '.mewcode/settings.json': '{}' });
  const plain = runtimeAt(root, { workers: 0 });
  const refused = await plain.call('load_skill', { name: 'renamed' });
  assert.equal(refused.code, 'invalid_args');
  assert.match(
    refused.content,
    /is in \.mewcode\/skills\/elsewhere\/, not in \.mewcode\/skills\/renamed\/.*Rename the directory to renamed\.$/,
  );
});

test('read rules: the CLI (read, grep, glob) honours a project deny rule for read_file', () => {
  const { root } = project({ deny: ['read_file(secret)'] });
  const cli = (...args: string[]) => runCliSync(args, { cwd: root });
  const file = cli('grep', 'TOP', 'secret/key.txt');
  assert.equal(file.code, 2, file.out);
  assert.ok(!file.out.includes('TOPSECRET'));
  assert.equal(cli('read', 'secret/key.txt').code, 1);
  const all = cli('grep', '-n', 'TOP');
  assert.equal(all.code, 0);
  assert.ok(!all.out.includes('TOPSECRET') && all.out.includes('pub/a.txt:1:TOP pub'), all.out);
  assert.ok(!cli('glob', '**/*').out.includes('secret'));
});

test('read rules: the MCP server’s read tools honour them (the same runtime.call)', async () => {
  const { root } = project({ deny: ['read_file(secret)'] });
  const { client } = await mcpClient({ root });
  const text = resultText;
  const file = await client.callTool({ name: 'grep', arguments: { pattern: 'TOP', path: 'secret/key.txt' } });
  assert.equal((file.structuredContent as { code: string }).code, 'permission_denied', text(file));
  assert.ok(!text(await client.callTool({ name: 'grep', arguments: { pattern: 'TOP' } })).includes('TOPSECRET'));
});

test('read rules: the sandbox masks what a negated rule denies (everything outside its pattern)', () => {
  const root = tempDir();
  writeTree(root, FILES);
  const gate = createGate({ root });
  if (!gate.ok) throw new Error(gate.error.message);
  const rule = parseRule('read_file(!pub/**)', 'deny', 'project', TOOL_NAMES);
  if (!rule.ok) throw new Error(rule.error);
  const masked = deniedByRules(root, readDenyOf({ allow: {}, deny: {} }, [rule.value], gate.value));
  assert.deepEqual(masked.map((p) => path.relative(root, p)).sort(), ['.mewcode', 'other.txt', 'secret']);
});
