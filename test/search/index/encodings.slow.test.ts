/**
 * The index never rules out a file the searcher would match because the two read its bytes
 * differently: a UTF-16 file (the searcher decodes it; its raw bytes hold no trigram of its text), a
 * Kelvin sign or long s under rg's Unicode case folding (`(?i)key` matches "\u212Aey"), a multiline
 * literal spanning a line break, and an alternation planned from the parsed pattern.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { RACY_MS } from '../../../lib/search/dircache.ts';
import { runCli } from '../../helpers/cli.ts';
import { tempDir, writeTree } from '../../helpers/temp.ts';
import { waitFor } from '../../helpers/wait.ts';

test('index: UTF-16 files, Unicode case folding, multiline and alternations answer as a scan does', async () => {
  const root = tempDir();
  const cache = tempDir('mewcode-cache-');
  const files: Record<string, string> = {
    'kelvin.txt': 'the \u212Aey is here\n',
    'long_s.txt': 'a cla\u017F\u017F act\n',
    'lines.txt': 'first part\nsecond part\n',
    'alt.ts': 'const userCache = 1;\n',
  };
  // An invalid byte decodes to U+FFFD, which a pattern's U+FFFD matches where the regex runs on the
  // decoded line (an alternation: no single literal for the byte prefilter).
  const invalid = Buffer.from([0x78, 0xff, 0x35, 0x0a]);
  for (let i = 0; i < 30; i++) files[`hay/f${i}.txt`] = `hay ${i}\n`;
  writeTree(root, files);
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a needle in UTF-16\n', 'utf16le')]);
  writeFileSync(path.join(root, 'wide.txt'), utf16);
  writeFileSync(path.join(root, 'invalid.txt'), invalid);
  const written = Date.now();
  await waitFor(() => Date.now() - written > RACY_MS + 100, 'the tree to leave the racy window', { everyMs: 100 });
  const cli = (args: string[]) => runCli(args, { cwd: root, env: { XDG_CACHE_HOME: cache } });
  const built = await cli(['index', root]);
  assert.equal(built.code, 0, built.err);
  // `(?i)key` has no trigram without k or s: a scan, which must still find the Kelvin sign.
  const cases: [string[], string, boolean][] = [
    [['needle'], 'wide.txt:1:a needle in UTF-16', true],
    [['(?i)key'], 'kelvin.txt:1:the \u212Aey is here', false],
    [['-i', 'class'], 'long_s.txt:1:a cla\u017F\u017F act', true],
    [['-U', 'first part\\nsecond'], 'lines.txt:1:first part', true],
    [['(user|order)Cache'], 'alt.ts:1:const userCache = 1;', true],
    [['(x\ufffd5|y\ufffd6)'], 'invalid.txt:1:x\ufffd5', false],
  ];
  for (const [args, line, served] of cases) {
    // The whole result object, with what the index did (grep's own --json prints ripgrep's JSON Lines).
    const call = ['call', 'grep', JSON.stringify(grepInput(args)), '--json'];
    const indexed = JSON.parse((await cli(call)).out);
    const scanned = JSON.parse((await cli([...call, '--no-index'])).out);
    assert.equal(indexed.content, scanned.content, `${args.join(' ')}: indexed and scanned differ`);
    assert.ok(String(indexed.content).includes(line), `${args.join(' ')}: ${indexed.content}`);
    if (served) assert.match(String(indexed.meta.index), /^served/, `${args.join(' ')}: the index served it`);
  }
});

/** grep's flags in these cases as the tool's arguments: -i, -U, then the pattern. */
function grepInput(args: readonly string[]): Record<string, unknown> {
  const input: Record<string, unknown> = { pattern: args.at(-1), head_limit: 0 };
  if (args.includes('-i')) input.case_insensitive = true;
  if (args.includes('-U')) input.multiline = true;
  return input;
}
