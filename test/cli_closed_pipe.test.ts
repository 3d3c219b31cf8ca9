/**
 * A reader that stops reading (`mewcode grep x | head -1`) closes the pipe: the CLI ends quietly with
 * exit 0, as rg and fd do, instead of crashing on EPIPE. Real processes, a real pipe closed by the
 * reader once the first output arrives.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { startCli } from './helpers/cli.ts';
import { startModel } from './helpers/fake_model.ts';
import { tempDir, writeTree } from './helpers/temp.ts';

function bigTree(): string {
  const root = tempDir('mewcode-pipe-');
  const text = Array.from({ length: 2000 }, (_, i) => `line ${i} with some words to print`).join('\n');
  writeTree(root, Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}.txt`, `${text}\n`])));
  return root;
}

for (const args of [
  ['grep', '-e', '.', '.'],
  ['grep', '-e', '.', '.', '--json'],
  ['glob', '**/*'],
  ['read', 'f0.txt', '--limit', '2000'],
  // Under the output budget: a budgeted answer past it would leave its spill file behind.
  ['call', 'read_file', '{"file_path":"f0.txt"}'],
]) {
  test(`cli: ${args.join(' ')} | head -1 ends quietly when the reader closes the pipe`, async () => {
    const run = startCli(args, { cwd: bigTree() });
    await once(run.child.stdout, 'data'); // the first output: the reader has what it wants
    run.child.stdout.destroy();
    const r = await run.exit;
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.err, /EPIPE|Unhandled|Error/);
  });
}

test('cli: the agent with --output-format stream-json | head -1 ends quietly when the reader closes the pipe', async () => {
  const root = bigTree();
  const model = await startModel([
    { calls: [{ name: 'read_file', input: { file_path: 'f0.txt' } }] },
    { calls: [{ name: 'glob', input: { pattern: '**/*' } }] },
    { text: 'Done.' },
  ]);
  try {
    const run = startCli([...model.openaiFlags, '--output-format', 'stream-json', 'read f0.txt'], { cwd: root });
    await once(run.child.stdout, 'data'); // the first event: the reader has what it wants
    run.child.stdout.destroy();
    const r = await run.exit;
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.err, /EPIPE|Unhandled|Error/);
  } finally {
    await model.close();
  }
});
