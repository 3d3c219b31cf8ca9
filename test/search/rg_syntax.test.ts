import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RG_CONTENT, rg } from '../helpers/rg.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { SYNTAX_CASES, SYNTAX_TREE } from './rg_syntax_cases.ts';

// ripgrep's pattern syntax, checked against a live rg on the same small tree: the matching lines must
// be identical, and a pattern rg rejects must be rejected (invalid_args), never searched with a
// different meaning.
const root = tempDir();
writeTree(root, SYNTAX_TREE);
const rt = runtimeAt(root, { workers: 1 });

/** rg's answer for a case; its errors (exit 2) are part of what the cases check. */
function rgCase(c: { pattern: string; rg?: string; ignoreCase?: boolean; multiline?: boolean }) {
  const args: string[] = [...RG_CONTENT];
  if (c.ignoreCase) args.push('-i');
  if (c.multiline) args.push('-U');
  return rg(root, [...args, '-e', c.rg ?? c.pattern], { errors: true });
}

for (const c of SYNTAX_CASES) {
  const label = `${JSON.stringify(c.pattern)}${c.ignoreCase ? ' -i' : ''}${c.multiline ? ' -U' : ''}`;
  test(`rg syntax: ${label} ${c.error ? 'is an error, as in rg' : 'finds what rg finds'}`, async () => {
    requireTool('rg');
    const theirs = rgCase(c);
    const r = await rt.call('grep', {
      pattern: c.pattern,
      head_limit: 0,
      ...(c.ignoreCase ? { case_insensitive: true } : {}),
      ...(c.multiline ? { multiline: true } : {}),
    });
    if (c.error) {
      assert.equal(theirs.status, 2, `rg accepts ${label}; the case table is wrong`);
      assert.equal(r.isError, true, `MewCode accepted ${label}: ${r.content}`);
      assert.match(r.content, /invalid_args|Invalid pattern/);
      return;
    }
    assert.notEqual(theirs.status, 2, `rg rejects ${c.rg ?? c.pattern}`);
    assert.equal(r.isError, false, r.content);
    const ours = Number(r.meta?.files) === 0 ? [] : r.content.split('\n').filter((l) => !l.startsWith('[note:'));
    // grep prints `path:line:text` as rg does.
    assert.deepEqual(ours, theirs.lines);
  });
}

test('rg syntax: only_matching with an empty match before an emoji moves on, as rg -o does', async () => {
  requireTool('rg');
  const r = await rt.call('grep', { pattern: 'g*', only_matching: true, path: 'unicode.txt', head_limit: 0 });
  assert.equal(r.isError, false, r.content);
  const theirs = rg(root, ['-n', '-o', '-e', 'g*'], { paths: ['unicode.txt'] });
  assert.deepEqual(
    r.content.split('\n').map((l) => l.replace(/^unicode\.txt:/, '')),
    // rg -o also prints each empty match as an empty line; grep leaves them out.
    theirs.out.split('\n').filter((l) => /^\d+:./.test(l)),
  );
});
