/**
 * The MCP server's `history` and `rewind` (lib/mcp/journal_tools.ts) through the SDK's own client:
 * changes made with the served write tools are listed, undone byte for byte, a file edited by someone
 * else afterwards is reported as a conflict and left as it is, and redo brings the changes back.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { HistoryEntry } from '../../lib/history/journal.ts';
import { journalBase, journalDirFor } from '../../lib/history/journal_dir.ts';
import type { RewindOutcome } from '../../lib/history/rewind.ts';
import { mcpClient, resultText } from '../helpers/mcp_client.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

// CRLF and a BOM: a restore must give back the bytes, not a re-encoding of them.
const ORIGINAL = '\uFEFFalpha\r\nbeta\r\n';

type Outcome = RewindOutcome & { clean: boolean };
const outcome = (r: unknown) => (r as { structuredContent: Outcome }).structuredContent;
const codeOf = (r: unknown) => (r as { structuredContent?: { code?: string } }).structuredContent?.code;

test('mcp server: history and rewind undo, report a conflict without touching the file, and redo', async () => {
  const root = tempDir();
  writeTree(root, { 'a.txt': ORIGINAL });
  const { client } = await mcpClient({ root, flags: ['--allow-write=.'] });
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  await call('read_file', { file_path: 'a.txt' });
  assert.equal(
    (await call('edit_file', { file_path: 'a.txt', old_string: 'beta', new_string: 'gamma' })).isError,
    false,
  );
  const edited = readFileSync(path.join(root, 'a.txt'));
  assert.equal((await call('write_file', { file_path: 'new/n.txt', content: 'made\n' })).isError, false);

  // The server inherited test/run.ts's XDG_DATA_HOME: its journal is in the test's temp dir.
  assert.ok(process.env.XDG_DATA_HOME);
  assert.ok(existsSync(journalDirFor(journalBase(), realpathSync(root))));

  const h = await call('history', {});
  const entries = (h.structuredContent as { entries: HistoryEntry[] }).entries;
  assert.deepEqual(
    entries.map((e) => [e.kind, e.tool, e.files]),
    [
      ['call', 'edit_file', [{ path: 'a.txt', change: 'modified' }]],
      ['call', 'write_file', [{ path: 'new/n.txt', change: 'created' }]],
    ],
  );
  assert.match(resultText(h), /edit_file\s+M a\.txt/);

  const undo = await call('rewind', { action: 'undo' });
  assert.equal(undo.isError, false);
  assert.deepEqual(outcome(undo).restored, [{ path: 'new/n.txt', change: 'deleted' }]);
  assert.deepEqual([outcome(undo).dirsRemoved, outcome(undo).clean], [['new'], true]);
  assert.equal(existsSync(path.join(root, 'new')), false);

  // Rewinding to the edit: nothing after it is in effect any more.
  const nothing = await call('rewind', { action: 'undo', to: entries[0]?.id });
  assert.deepEqual([nothing.isError, codeOf(nothing)], [true, 'no_change']);
  assert.equal((await call('rewind', { action: 'undo' })).isError, false);
  assert.deepEqual(readFileSync(path.join(root, 'a.txt')), Buffer.from(ORIGINAL));

  // Someone edits the file: redo leaves it untouched and says why, with the diff.
  writeFileSync(path.join(root, 'a.txt'), 'mine\n');
  const refused = await call('rewind', { action: 'redo' });
  assert.equal(refused.isError, false);
  const c = outcome(refused);
  assert.deepEqual(
    [c.clean, c.restored, c.conflicts.map((x) => [x.path, x.why])],
    [false, [], [['a.txt', 'it was changed since']]],
  );
  assert.match(c.conflicts[0]?.diff ?? '', /^\+mine$/m);
  assert.match(resultText(refused), /left as it is: a\.txt: it was changed since/);
  assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'mine\n');

  // Put back, the two undos are redone last first.
  writeFileSync(path.join(root, 'a.txt'), ORIGINAL);
  assert.deepEqual(outcome(await call('rewind', { action: 'redo' })).restored, [{ path: 'a.txt', change: 'modified' }]);
  assert.deepEqual(readFileSync(path.join(root, 'a.txt')), edited);
  assert.equal(outcome(await call('rewind', { action: 'redo' })).clean, true);
  assert.equal(readFileSync(path.join(root, 'new/n.txt'), 'utf8'), 'made\n');
  // edit, write, two undos, two redos: the newest shown, five older.
  const last = (await call('history', { limit: 1 })).structuredContent as { entries: HistoryEntry[]; older: number };
  assert.deepEqual([last.entries.length, last.entries[0]?.kind, last.older], [1, 'redo', 5]);
});

test('mcp server: rewind refuses unclear arguments with invalid_args, and plan mode lists only history', async () => {
  const root = tempDir();
  const { client } = await mcpClient({ root });
  const call = (args: unknown) => client.callTool({ name: 'rewind', arguments: args as Record<string, unknown> });
  assert.equal(codeOf(await call({})), 'invalid_args');
  assert.equal(codeOf(await call({ action: 'redo', to: 1 })), 'invalid_args');
  assert.equal(codeOf(await call({ action: 'undo', to: 0 })), 'invalid_args');
  assert.equal(codeOf(await call({ action: 'undo', id: 1 })), 'invalid_args');
  assert.equal(codeOf(await call({ action: 'undo' })), 'no_change');
  assert.match(resultText(await client.callTool({ name: 'history', arguments: {} })), /The journal is empty/);

  const plan = (await mcpClient({ root, flags: ['--mode', 'plan'] })).client;
  const names = (await plan.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('history') && !names.includes('rewind'));
  assert.equal(codeOf(await plan.callTool({ name: 'rewind', arguments: { action: 'undo' } })), 'unknown_tool');
});
