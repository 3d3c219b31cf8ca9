import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BUFFER_BYTES, CHUNK_BYTES } from '../../lib/search/search.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { ourLines, rgLines } from './rg_lines.ts';

// Large files are read and searched CHUNK_BYTES at a time (lib/search/search.ts): lines that straddle
// a read, lines longer than several reads (with the literal at their start, middle and end), a UTF-8
// BOM before a long first line, a file of exactly one read, and CRLF must all answer as rg does, in
// every output mode, with and without -i, context (which reads whole regions) and inversion. A line
// longer than the whole read buffer (BUFFER_BYTES) is searched a piece at a time and counts once.

const filler = (bytes: number) => Buffer.alloc(bytes, 'filler line\n');
const long = (bytes: number, at: number, word: string) => {
  const b = Buffer.alloc(bytes, 'x');
  b.write(word, at);
  return Buffer.concat([b, Buffer.from('\n')]);
};

const root = tempDir();
writeTree(root, {
  // A literal line across each of the first reads' edges.
  'straddle.txt': Buffer.concat([
    filler(CHUNK_BYTES - 6),
    Buffer.from('a needle here\n'),
    filler(CHUNK_BYTES - 20),
    Buffer.from('Needle at two\r\n'),
    filler(3 * CHUNK_BYTES),
    Buffer.from('last NEEDLE'),
  ]),
  // Lines of 2.7 reads with the literal at the start, middle and end, then one without it.
  'long.txt': Buffer.concat([
    Buffer.from('short needle\n'),
    long(Math.floor(2.7 * CHUNK_BYTES), 0, 'needle'),
    long(Math.floor(2.7 * CHUNK_BYTES), CHUNK_BYTES + 3, 'needle'),
    long(Math.floor(2.7 * CHUNK_BYTES), Math.floor(2.7 * CHUNK_BYTES) - 6, 'needle'),
    long(Math.floor(1.5 * CHUNK_BYTES), 0, 'nothing'),
    Buffer.from('needle after\n'),
  ]),
  'bom.txt': Buffer.concat([
    Buffer.from([0xef, 0xbb, 0xbf]),
    long(CHUNK_BYTES + 100, CHUNK_BYTES, 'needle'),
    filler(100),
  ]),
  // After a match on the first line, lines longer than the buffer: the literal only in a later
  // piece, in the first and a later piece (one line, one match), and in none.
  'huge.txt': Buffer.concat([
    Buffer.from('needle first\n'),
    long(BUFFER_BYTES + CHUNK_BYTES, BUFFER_BYTES + 10, 'needle'),
    filler(100),
    (() => {
      const b = long(BUFFER_BYTES + CHUNK_BYTES, 0, 'needle');
      b.write('needle', BUFFER_BYTES + 20);
      return b;
    })(),
    long(BUFFER_BYTES + 5, 0, 'nothing'),
    Buffer.from('needle last\n'),
  ]),
  'exact.txt': Buffer.concat([filler(CHUNK_BYTES - 12 - 7), Buffer.from('needle\n'), filler(12)]),
  'none.txt': filler(2 * CHUNK_BYTES + 5),
  // Decoded, larger than the read buffer: the folded search's memory grows, which detaches the read
  // buffer (the same memory); the files searched after it must still be read.
  'a16.txt': Buffer.concat([
    Buffer.from([0xff, 0xfe]),
    Buffer.from(`Needle in UTF-16\n${'filler line\n'.repeat(Math.ceil((BUFFER_BYTES + 300_000) / 12))}`, 'utf16le'),
  ]),
});
const rt = runtimeAt(root, { workers: 0 });

/** Lines compared on their first 200 characters. */
const rg = (args: string[]) => rgLines(root, args, 200);
const ours = (input: Record<string, unknown>) => ourLines(rt, input, 200);

const cases: [string, Record<string, unknown>, string[]][] = [
  ['content', { pattern: 'needle' }, ['needle']],
  ['content -i', { pattern: 'needle', case_insensitive: true }, ['-i', 'needle']],
  ['count', { pattern: 'needle', output_mode: 'count' }, ['-c', 'needle']],
  ['count -i', { pattern: 'NEEDLE', output_mode: 'count', case_insensitive: true }, ['-c', '-i', 'NEEDLE']],
  ['files', { pattern: 'needle', output_mode: 'files_with_matches' }, ['-l', 'needle']],
  ['a regex', { pattern: 'ne+dle (here|after)' }, ['ne+dle (here|after)']],
  ['words', { pattern: '\\bneedle\\b', case_insensitive: true }, ['-i', '-w', 'needle']],
  // Context beside a line longer than the buffer is a stated difference from rg (docs/search.md).
  [
    'context',
    { pattern: 'needle', context: 1, glob: '!{long,huge}.txt' },
    ['-C', '1', '-g', '!{long,huge}.txt', 'needle'],
  ],
  ['inverted count', { pattern: 'filler', invert_match: true, output_mode: 'count' }, ['-v', '-c', 'filler']],
  ['max count', { pattern: 'needle', max_count: 2 }, ['-m', '2', 'needle']],
];

for (const [what, input, args] of cases) {
  test(`grep over reads of ${CHUNK_BYTES} bytes matches rg: ${what}`, async () => {
    requireTool('rg');
    const mine = await ours(input);
    assert.deepEqual(mine, rg(args));
    assert.ok(mine.length > 0);
  });
}
