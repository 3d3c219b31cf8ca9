/**
 * The journal groups an agent run's changes by run and turn: a scripted model (a loopback server,
 * driven through the official SDK) writes a file in turn 1 and changes it with a shell command in
 * turn 2; each entry records the run's id and its turn, `mewcode history` shows them, and a second
 * run has another id. Calls made outside a run (the library's own) record none.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runAgent } from '../../lib/agent/loop.ts';
import { historyTable } from '../../lib/history/print.ts';
import { makeProvider } from '../../lib/llm/providers.ts';
import { startModel } from '../helpers/fake_model.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir } from '../helpers/temp.ts';

test('journal turns: an agent run records its run id and each call turn; history shows them; a later run has its own id', async () => {
  const turns = (file: string) => [
    { calls: [{ name: 'write_file', input: { file_path: file, content: 'one\n' } }] },
    { calls: [{ name: 'bash', input: { command: `echo two >> ${file}` } }] },
    { text: 'Done.' },
  ];
  const model = await startModel([...turns('notes.txt'), ...turns('later.txt')]);
  const root = tempDir();
  const rt = runtimeAt(root, {
    workers: 0,
    permissions: { allow: { write: true, run: true } },
    journal: { dir: tempDir() },
  });
  const provider = makeProvider({ provider: 'anthropic', apiKey: 'k', baseURL: model.url, maxRetries: 0 });
  assert.ok(provider.ok);
  const go = () => runAgent({ task: 'write notes', provider: provider.value, model: 'test-model', runtime: rt });
  const first = await go();
  assert.equal(first.answer, 'Done.', first.error);
  assert.equal(readFileSync(path.join(root, 'notes.txt'), 'utf8'), 'one\ntwo\n');
  await rt.call('write_file', { file_path: 'mine.txt', content: 'by the library\n' });
  const second = await go();
  assert.equal(second.answer, 'Done.', second.error);
  const list = rt.journal?.list() ?? [];
  assert.deepEqual(
    list.map((e) => [e.tool, e.turn]),
    [
      ['write_file', 1],
      ['bash', 2],
      ['write_file', undefined],
      ['write_file', 1],
      ['bash', 2],
    ],
  );
  const [a, b, , c, d] = list;
  assert.match(a?.run ?? '', /^[0-9a-f]{8}$/);
  assert.equal(b?.run, a?.run, 'one run, one id');
  assert.equal(d?.run, c?.run);
  assert.notEqual(c?.run, a?.run, 'each run its own id');
  const table = historyTable(list);
  assert.match(table, /RUN\/TURN/);
  assert.match(table, new RegExp(`${a?.run}/2 +bash +M notes.txt`));
  assert.match(table, / - +write_file +A mine.txt/);
  await model.close();
});
