/**
 * The permission kinds are one table (lib/core/permission_kinds.ts): every kind reaches the flags and
 * their parser, the help, the approval prompt, the policy's default and the docs, so a kind added to
 * the table and missed somewhere fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseCli } from '../lib/cli/args.ts';
import { FLAGS } from '../lib/cli/flags.ts';
import { HELP } from '../lib/cli/help.ts';
import { KINDS, type Kind, PERMISSION_FLAGS, PERMISSION_KINDS } from '../lib/core/permission_kinds.ts';
import type { Access } from '../lib/core/tool.ts';
import { render } from '../lib/prompt/prompt.ts';
import { REPO } from './helpers/repo.ts';
import { runtimeAt } from './helpers/runtime.ts';
import { tempDir, writeTree } from './helpers/temp.ts';

/** Every access is of a kind in the table and every kind has an access: checked by the compiler. */
type SameKinds = [Access['kind']] extends [Kind] ? ([Kind] extends [Access['kind']] ? true : never) : never;
const kindsAgree: SameKinds = true;

const docs = ['docs/permissions.md', 'docs/cli.md'].map((f) => readFileSync(path.join(REPO, f), 'utf8')).join('\n');

test('permission kinds: the table and the access type name the same kinds', () => {
  assert.equal(kindsAgree, true);
  assert.deepEqual([...KINDS], ['read', 'write', 'run', 'net', 'env']);
});

for (const kind of KINDS) {
  const d = PERMISSION_KINDS[kind];
  test(`permission kinds: ${kind} has its flags, their parser, help, prompt and docs`, () => {
    for (const flag of [`allow-${kind}`, `deny-${kind}`] as const) {
      assert.ok(PERMISSION_FLAGS.includes(flag), flag);
      assert.ok(flag in FLAGS, `${flag} is in the flag table`);
      assert.match(HELP, new RegExp(`--${flag}`), `--${flag} is in the help`);
      assert.match(docs, new RegExp(`--${flag}`), `--${flag} is in the docs`);
      const parsed = parseCli(['call', 'glob', '{}', `--${flag}=x,y`]);
      assert.equal(parsed.values[flag], 'x,y', `--${flag} parses`);
    }
    assert.match(HELP, new RegExp(`--allow-${kind}\\[=${d.subject},…\\]`), 'the help names what a grant lists');
    const drawn = render({ tool: 'some_tool', asks: [{ kind, subject: 'the-subject' }], always: true }, undefined, 100);
    assert.ok(drawn.includes(`MewCode: some_tool wants to ${d.ask}`), drawn);
    assert.ok(drawn.includes('the-subject'), drawn);
  });
}

test('permission kinds: with no flag or rule, each kind gets the default its table entry gives', async () => {
  const root = tempDir('mewcode-kinds-');
  writeTree(root, { 'a.txt': 'x\n' });
  const rt = runtimeAt(root, { prompt: 'none', home: null });
  const decide = (kind: Kind) => {
    const access = { read: 'a.txt', write: 'a.txt', run: 'ls', net: 'example.com', env: 'SOME_SECRET_TOKEN' }[kind];
    const checked =
      kind === 'read' || kind === 'write'
        ? { kind, path: path.join(root, access) }
        : kind === 'run'
          ? { kind, command: access }
          : kind === 'net'
            ? { kind, host: access }
            : { kind, name: access };
    return rt.policy.check({ tool: 'some_tool', readOnly: false, accesses: [checked as never] });
  };
  for (const kind of KINDS) {
    const d = await decide(kind);
    const want = PERMISSION_KINDS[kind].byDefault;
    // With no terminal to ask, an ask ends in a refusal by the prompt step, naming the flags to grant it.
    if (want === 'ask') assert.equal(d.by, 'prompt', kind);
    else assert.equal(d.allow, want === 'allow', `${kind}: ${d.reason}`);
    if (want !== 'ask') assert.match(d.reason, new RegExp(PERMISSION_KINDS[kind].defaultWhy), kind);
  }
});
