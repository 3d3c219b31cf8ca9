import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { BUFFER_BYTES as B } from '../../lib/search/search.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { ourLines, rgLines } from './rg_lines.ts';

// Attacks on lines longer than the read buffer (lib/search/search.ts searches them a piece of
// BUFFER_BYTES at a time and must count each once, as rg does): lines of exactly BUFFER_BYTES and one
// byte either side, several in a row, at the start and end of a file, after a UTF-8 BOM, with CRLF,
// the literal in the first piece, a later one or both, in every output mode. Each answer is rg's.
// Context beside such a line is a stated difference (docs/search.md), so no case asks for context.

const x = (n: number) => Buffer.alloc(n, 'x');
const s = (t: string) => Buffer.from(t);
const cat = (...b: Buffer[]) => Buffer.concat(b);

const root = tempDir();
writeTree(root, {
  // The literal ends the line's first piece exactly (line of BUFFER_BYTES), one byte short, or the
  // line is one byte too short to need a piece.
  'exact.txt': cat(x(B - 6), s('needle\n'), s('needle two\n')),
  'short_by_one.txt': cat(x(B - 7), s('needle\n'), s('needle two\n')),
  'exact_crlf.txt': cat(x(B - 7), s('needle\r\n'), s('after\r\n')),
  // The literal only in a later piece, in several long lines in a row, one of them three pieces long.
  'several.txt': cat(x(B + 5), s('needle\n'), x(B + 5), s('needle\n'), x(2 * B + 5), s('needle\n'), s('end\n')),
  // The literal in the first piece only, and in the first and a later piece (one line, one match).
  'first.txt': cat(s('needle'), x(B + 10), s('\n'), s('needle'), x(B), s('needle\n')),
  // A BOM before a long first line whose literal is in its second piece; CRLF lines after it.
  'bom.txt': cat(Buffer.from([0xef, 0xbb, 0xbf]), x(B + 100), s('needle\r\n'), s('needle\r\n')),
  // A long last line with no newline, after a short match; a long line without the literal.
  'end.txt': cat(s('needle a\n'), x(B + 3), s('nothing\n'), x(B + 3), s('needle')),
  'upper.txt': cat(x(B + 2), s('NeEdLe\n')),
  // A line of exactly BUFFER_BYTES with no newline: the file ends where its only piece does.
  'whole.txt': x(B),
  // Broken ones (below), kept apart: the literal across the edge of the first piece, a line one byte
  // longer than the buffer ending in the literal, anchors next to a piece's edge.
  'edge/straddle.txt': cat(x(B - 3), s('needle'), x(10), s('\n')),
  'edge/one_over.txt': cat(x(B - 5), s('needle\n'), s('needle two\n')),
  'edge/dollar.txt': cat(x(B - 1), s('Zyz\n')),
  'edge/caret.txt': cat(x(B), s('Qyz\n')),
});
const rt = runtimeAt(root, { workers: 0 });

after(() => rt.close());
const rg = (args: string[]) => rgLines(root, args, 120);
const ours = (input: Record<string, unknown>) => ourLines(rt, { glob: '!edge/**', ...input }, 120);

const holding: [string, Record<string, unknown>, string[]][] = [
  ['content', { pattern: 'needle' }, ['needle']],
  ['content -i', { pattern: 'needle', case_insensitive: true }, ['-i', 'needle']],
  ['count', { pattern: 'needle', output_mode: 'count' }, ['-c', 'needle']],
  ['count -i', { pattern: 'NEEDLE', output_mode: 'count', case_insensitive: true }, ['-c', '-i', 'NEEDLE']],
  ['count of a regex', { pattern: 'ne+dle|nothing', output_mode: 'count' }, ['-c', 'ne+dle|nothing']],
  ['files', { pattern: 'needle', output_mode: 'files_with_matches' }, ['-l', 'needle']],
  ['max count 1', { pattern: 'needle', output_mode: 'count', max_count: 1 }, ['-c', '-m', '1', 'needle']],
  ['max count 2', { pattern: 'needle', max_count: 2 }, ['-m', '2', 'needle']],
  ['files -v', { pattern: 'x', output_mode: 'files_with_matches', invert_match: true }, ['-l', '-v', 'x']],
];
for (const [what, input, args] of holding) {
  test(`long-line attacks: lines longer than the read buffer answer as rg does: ${what}`, async () => {
    requireTool('rg');
    const mine = await ours(input);
    assert.deepEqual(mine, rg(['-g', '!edge/**', ...args]));
    assert.ok(mine.length > 0);
  });
}

const breaking: [string, Record<string, unknown>, string[], string?][] = [
  // -v: a line that matches in any piece is not an inverted match; one that matches in none is.
  ['count -v', { pattern: 'needle', output_mode: 'count', invert_match: true }, ['-c', '-v', 'needle']],
  ['content -v', { pattern: 'needle', invert_match: true }, ['-v', 'needle']],
  [
    'a literal across the edge of a piece',
    { pattern: 'needle', output_mode: 'count', glob: 'edge/{straddle,one_over}.txt' },
    ['-c', '-g', 'edge/{straddle,one_over}.txt', 'needle'],
    'a piece is searched on its own: a match across its edge is not seen (no overlap between pieces)',
  ],
  [
    'anchors next to the edge of a piece',
    { pattern: 'Z$|^Q', output_mode: 'count', glob: 'edge/{dollar,caret}.txt' },
    ['-c', '-g', 'edge/{dollar,caret}.txt', 'Z$|^Q'],
    "a piece's ends are taken for the line's: $ and ^ match there",
  ],
  [
    '-o with the match in a later piece',
    { pattern: 'needle', only_matching: true },
    ['-o', 'needle'],
    "a later piece's match prints the line's head, not the match",
  ],
];
for (const [what, input, args, todo] of breaking) {
  test(`long-line attacks: lines longer than the read buffer answer as rg does: ${what}`, { todo }, async () => {
    requireTool('rg');
    const mine = await ours(input);
    assert.deepEqual(mine, rg(input.glob ? args : ['-g', '!edge/**', ...args]));
  });
}
