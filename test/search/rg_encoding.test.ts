import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RG_CONTENT, rg } from '../helpers/rg.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

// Encodings and line endings as ripgrep reads them, checked against a live rg: a UTF-8 BOM is not
// part of line 1, UTF-16 files with a BOM are decoded and searched, and CRLF lines match `$` as with
// rg --crlf (MewCode's one deliberate difference here: rg without --crlf keeps the \r in the line).
const utf16 = (s: string, be: boolean) => {
  const le = Buffer.from(`\ufeff${s}`, 'utf16le');
  return be ? Buffer.from(le).swap16() : le;
};
const root = tempDir();
writeTree(root, {
  'bom.js': Buffer.from('\ufeffdebugger;\nconst x = 1;\n', 'utf8'),
  'le.txt': utf16('hello world\r\nTODO: café ☕\nlast line 😀\n', false),
  'be.txt': utf16('TODO big endian\nsecond\n', true),
  'crlf.c': 'int a;\r\nint b;\r\n/* c */\r\n',
  'nul.bin': Buffer.from('TODO\0binary\n'),
  'fold.txt': '\u212Aelvin \u017Fign\n忙\nplain\n',
});
const rt = runtimeAt(root, { workers: 1 });

const rgLines = (args: string[]): string[] => rg(root, [...RG_CONTENT, ...args]).lines.map((l) => l.replace(/\r$/, ''));

async function ours(pattern: string, extra: Record<string, unknown> = {}): Promise<string[]> {
  const r = await rt.call('grep', { pattern, head_limit: 0, ...extra });
  assert.equal(r.isError, false, r.content);
  if (Number(r.meta?.files) === 0) return [];
  return r.content.split('\n').filter((l) => !l.startsWith('[note:'));
}

const cases: [string, string, string[]][] = [
  ['a UTF-8 BOM is not part of line 1', '^debugger;', []],
  ['printed lines carry no BOM', 'debugger', []],
  ['UTF-16LE with a BOM is decoded and searched', 'TODO|café|😀', []],
  ['UTF-16BE with a BOM is decoded and searched', 'big endian', []],
  ['UTF-16 lines are numbered as rg numbers them', '^second$|^last', []],
  ['CRLF: $ matches before \\r\\n, as rg --crlf', ';$', ['--crlf']],
  ['case-insensitive k and s reach the Kelvin sign and the long s through the byte prefilter', '(?i)kelvin ſign', []],
  ['a case-insensitive s finds no other bytes (忙 is E5 BF 99)', '(?i)s', []],
  ['CRLF: the \\r is not in the printed line', '\\*/$', ['--crlf']],
];
for (const [what, pattern, rgArgs] of cases) {
  test(`rg encodings: ${what}`, async () => {
    requireTool('rg');
    const theirs = rgLines([...rgArgs, '-e', pattern]);
    assert.ok(theirs.length > 0, `rg finds nothing for ${pattern}`);
    assert.deepEqual(await ours(pattern), theirs);
  });
}

test('rg encodings: without --crlf rg misses CRLF lines with $; MewCode finds them (the listed difference)', async () => {
  requireTool('rg');
  const crlf = (lines: string[]) => lines.filter((l) => l.startsWith('crlf.c'));
  assert.deepEqual(crlf(rgLines(['-e', ';$'])), []);
  assert.deepEqual(crlf(await ours(';$')), ['crlf.c:1:int a;', 'crlf.c:2:int b;']);
  // The dropped \r is gone for every spelling, a bare literal included (it once matched raw bytes).
  for (const p of ['\\r', '\\r+', '[\\r]', '\\r$']) assert.deepEqual(crlf(await ours(p)), [], p);
});

test('rg encodings: a UTF-16 file is not counted as binary; a file with a NUL that may match is', async () => {
  const r = await rt.call('grep', { pattern: 'TODO', head_limit: 0 });
  assert.match(r.content, /le\.txt:2:TODO: café ☕/);
  assert.match(r.content, /skipped 1 binary file that may match/);
});
