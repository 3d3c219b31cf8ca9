/**
 * A directory the journal cannot list: a command that makes one unreadable, then readable again,
 * must not have its files taken for deleted and then created — an undo would delete a file the agent
 * never touched. The runtime runs in a child process under setpriv without capabilities, so root is
 * bound by the directory's mode as any user is.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runWithoutCaps } from '../helpers/no_caps.ts';
import { REPO } from '../helpers/repo.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const SCRIPT = `
  import { createRuntime } from ${JSON.stringify(path.join(REPO, 'lib/runtime/runtime.ts'))};
  const [root, journal] = process.argv.slice(-2);
  const made = createRuntime({ root, workers: 0, home: null, permissions: { allow: { run: true } }, journal: { dir: journal } });
  if (!made.ok) throw new Error(made.error);
  const rt = made.value;
  const hide = await rt.call('bash', { command: 'chmod 000 d' });
  const show = await rt.call('bash', { command: 'chmod 755 d' });
  const undo = await rt.journal.undo();
  process.stdout.write(JSON.stringify({ hide: hide.meta, show: show.meta, list: rt.journal.list(), undo }));
  await rt.close();
`;

test('shell journal: a directory made unlistable and listable again is named, and its files are neither deleted nor created', () => {
  const root = tempDir();
  writeTree(root, { 'd/f.txt': 'the user file\n', 'a.txt': 'a\n' });
  const journal = tempDir();
  const run = runWithoutCaps(SCRIPT, [root, journal], REPO);
  assert.equal(
    run.status,
    0,
    `setpriv (util-linux) must run the runtime without capabilities: ${run.error ?? run.stderr}`,
  );
  const r = JSON.parse(run.stdout);
  const named = (m: { notRecorded?: { path: string; why: string }[] }) =>
    (m.notRecorded ?? []).map((x) => `${x.path} ${x.why}`);
  assert.match(named(r.hide).join('\n'), /^d\/ a directory the journal could not list/m);
  assert.match(named(r.show).join('\n'), /^d\/ a directory the journal could not list/m);
  assert.deepEqual(r.list, [], 'no file recorded as deleted or created');
  assert.equal(r.undo.ok, false, 'nothing to undo');
  assert.equal(readFileSync(path.join(root, 'd/f.txt'), 'utf8'), 'the user file\n');
});
