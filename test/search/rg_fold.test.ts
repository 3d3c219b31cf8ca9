import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { foldedLiteral, foldedView } from '../../lib/search/folded_literal.ts';
import { BUFFER_BYTES } from '../../lib/search/search.ts';
import { RG_CONTENT, rg } from '../helpers/rg.ts';
import { removeSpills, runtimeAt } from '../helpers/runtime.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

// Case-insensitive literal search (lib/search/folded_literal.ts, fold_wasm.ts) against a reference
// and against a live rg -i: ASCII folding at every offset and SIMD block edge, the non-ASCII letters
// Unicode folds to ASCII ones (K, ſ), other non-ASCII folding (σ/ς/Σ, ß/ẞ, É), literals at a file's or
// a read buffer's edges, CRLF, multiline, word boundaries, only-matching, counts, inversion.

/** Starts of `lit` in `hay` where every byte equals the literal's under ASCII case folding. */
function reference(hay: Buffer, lit: string): number[] {
  const low = (b: number) => (b >= 0x41 && b <= 0x5a ? b + 32 : b);
  const out: number[] = [];
  for (let s = 0; s + lit.length <= hay.length; s++) {
    let ok = true;
    for (let j = 0; j < lit.length && ok; j++) ok = low(hay[s + j] as number) === lit.charCodeAt(j);
    if (ok) out.push(s);
  }
  return out;
}

function all(view: { find(from: number): number }, from = 0): number[] {
  const out: number[] = [];
  for (let at = view.find(from); at !== -1; at = view.find(at + 1)) out.push(at);
  return out;
}

test('folded byte search: equals an ASCII case-folding reference on random bytes, from every offset', () => {
  let seed = 12345;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  // Letters of both cases, the bytes one bit away from letters (@ [ ` {), digits, newlines, non-ASCII.
  const alphabet = Buffer.from('aAbBkKsSzZ@[`{09_ \n\r\t', 'latin1');
  const extra = [0xc1, 0xe1, 0xc5, 0xbf, 0xe2, 0x84, 0xaa, 0xff, 0x80];
  for (let round = 0; round < 3000; round++) {
    const len = rand(round < 1500 ? 40 : 200);
    const hay = Buffer.alloc(len);
    for (let i = 0; i < len; i++)
      hay[i] = rand(10) === 0 ? (extra[rand(extra.length)] as number) : (alphabet[rand(alphabet.length)] as number);
    let lit: string;
    if (len > 0 && rand(2) === 0) {
      const s = rand(len);
      lit = hay.subarray(s, s + 1 + rand(Math.min(20, len - s))).toString('latin1');
    } else {
      lit = Array.from({ length: 1 + rand(4) }, () => String.fromCharCode(alphabet[rand(8)] as number)).join('');
    }
    if (!/^[\x20-\x7e\t]+$/.test(lit)) continue; // the searcher only folds printable ASCII literals
    lit = lit.toLowerCase();
    const view = foldedView(hay, foldedLiteral(lit));
    const want = reference(hay, lit);
    const from = rand(len + 1);
    const got = all(view, from);
    const wanted = want.filter((s) => s >= from);
    if (view.exact) assert.deepEqual(got, wanted, `${JSON.stringify(lit)} in ${hay.toString('hex')} from ${from}`);
    // K or ſ in the region: the fallback may find more (confirmed by the line regex), never less.
    else for (const s of wanted) assert.ok(got.includes(s), `${JSON.stringify(lit)} at ${s} in ${hay.toString('hex')}`);
  }
});

test('folded byte search: a literal at both ends of large regions, and longer than the block width', () => {
  for (const lit of ['x', 'ab', 'printcomments', 'a-very-long-literal-that-spans-two-simd-blocks-of-sixteen']) {
    for (const size of [15, 16, 17, 31, 32, 33, 4096, 65_537]) {
      const hay = Buffer.alloc(size + 2 * lit.length, '.');
      hay.write(lit.toUpperCase(), 0, 'latin1');
      hay.write(lit, hay.length - lit.length, 'latin1');
      hay.write(lit[0]?.toUpperCase() + lit.slice(1), size, 'latin1'); // wherever `size` lands
      const view = foldedView(hay, foldedLiteral(lit));
      assert.deepEqual(all(view), reference(hay, lit), `${lit} in ${size}`);
    }
  }
});

test('folded byte search: K or ſ anywhere in a region sends a k/s literal to the confirmed path', () => {
  const K = Buffer.from('\u212a');
  const S = Buffer.from('\u017f');
  for (const size of [0, 1, 15, 16, 17, 40, 100]) {
    for (let at = 0; at <= size; at++) {
      for (const sign of [K, S]) {
        const hay = Buffer.concat([Buffer.alloc(at, 'x'), sign, Buffer.alloc(size - at, 'y')]);
        assert.equal(foldedView(hay, foldedLiteral('ask')).exact, false, `${sign.toString()} at ${at} of ${size}`);
        assert.equal(foldedView(hay, foldedLiteral('abc')).exact, true, 'no k or s: nothing to fold');
        // A sequence cut by the region's end is not the character.
        const cut = hay.subarray(0, at + sign.length - 1);
        assert.equal(foldedView(cut, foldedLiteral('ask')).exact, true, `a cut ${sign.toString()} at ${at}`);
      }
    }
  }
});

// The same searches through MewCode's grep and through rg on a tree of hand-made files.
const root = tempDir();
const big = Buffer.alloc(BUFFER_BYTES + 4096, 'filler line\n');
// Lines holding the literal on both sides of the read buffer's edge, and at the very end (no newline).
for (const at of [BUFFER_BYTES - 200, BUFFER_BYTES - 12, BUFFER_BYTES + 100]) big.write('TaSk edge\n', at - (at % 12));
writeTree(root, {
  'mixed.txt': 'Task one\ntask two\nTASK three\ntAsK four\nno match\nmultitasking\nTASKS\n',
  'kelvin.txt': 'ta\u017F\u212A with long s and kelvin\nTA\u017FK\n\u212Aiss\nKISS\nkiß\n',
  'greek.txt':
    'ΣΊΣΥΦΟΣ\nσίσυφος\nσίσυφοσ\nstraße STRASSE\nSTRAẞE\nstrategy STRAIGHT\nÉcole école ÉCOLE\nωMEGA\nmega only\nǄ title ǅ\nǆ\nohm \u2126\nΩ ω\n',
  // Each alone in its file: a region is ruled out on its bytes, so only there is a missing variant seen.
  'upper_sigma.txt': 'ΣΊΣΥΦΟΣ only\n',
  'ohm.txt': 'ohm \u2126 only\n',
  'digraph.txt': 'Ǆ only\n',
  'crlf.txt': 'Error here\r\nerror\r\nnone\r\nERROR: done\r\n',
  'start_end.txt': 'errorAtStart\nmiddle\nendsWithERROR',
  'one.txt': 'error',
  'words.txt': 'task tasks subtask TASK\nmultitask\n(task)\n',
  'big.log': big,
  'bits.txt': '@bc `BC [bc {bc abc ABC\nx@y X@Y x`y\n',
  // With a real K in the region the latin1 fallback runs, whose \xE2 also matches \xC2 under `i`:
  // the look-alike line (U+0084 and a stray byte) must be confirmed away.
  'lookalike.txt': Buffer.concat([
    Buffer.from('\u212Aiss real\n'),
    Buffer.from([0xc2, 0x84, 0xaa]),
    Buffer.from('iss fake\n'),
  ]),
});
const rt = runtimeAt(root, { workers: 2 });

type Case = [string, Record<string, unknown>, string[]];
const cases: Case[] = [
  ['mixed case', { pattern: 'task' }, ['task']],
  ['mixed case, upper-case pattern', { pattern: 'TASK' }, ['TASK']],
  ['k and s with K and ſ in the file', { pattern: 'task', path: 'kelvin.txt' }, ['--', 'task', 'kelvin.txt']],
  ['kiss', { pattern: 'kiss' }, ['kiss']],
  ['the Kelvin sign in the pattern', { pattern: '\u212Aiss' }, ['\u212Aiss']],
  ['the long s in the pattern', { pattern: 'ta\u017Fk' }, ['ta\u017Fk']],
  ['Greek sigma', { pattern: 'σίσυφος' }, ['σίσυφος']],
  ['Greek, upper-case pattern', { pattern: 'ΣΊΣΥΦΟΣ' }, ['ΣΊΣΥΦΟΣ']],
  ['a title-case digraph', { pattern: 'ǆ' }, ['ǆ']],
  ['omega and the ohm sign', { pattern: 'ω' }, ['ω']],
  ['the ohm sign in the pattern', { pattern: '\u2126', output_mode: 'count' }, ['-c', '\u2126']],
  ['non-ASCII around an ASCII run', { pattern: 'straße' }, ['straße']],
  ['É', { pattern: 'école' }, ['école']],
  ['a non-ASCII first letter', { pattern: 'Ωmega' }, ['Ωmega']],
  ['CRLF', { pattern: 'error' }, ['error']],
  ['the file edges', { pattern: 'error', path: 'start_end.txt' }, ['--', 'error', 'start_end.txt']],
  ['a one-line file', { pattern: 'ERROR', path: 'one.txt' }, ['--', 'ERROR', 'one.txt']],
  ['the read buffer edges', { pattern: 'task edge', path: 'big.log' }, ['--', 'task edge', 'big.log']],
  ['bytes one bit from letters', { pattern: 'abc' }, ['abc']],
  ['@ is not a letter', { pattern: 'x@y', fixed_strings: true }, ['-F', 'x@y']],
  ['word boundaries (rg -w)', { pattern: '\\btask\\b' }, ['-w', 'task']],
  ['only matching', { pattern: 'task', only_matching: true }, ['-o', 'task']],
  ['only matching, CRLF', { pattern: 'error', only_matching: true }, ['-o', 'error']],
  ['counts', { pattern: 'task', output_mode: 'count' }, ['-c', 'task']],
  ['files', { pattern: 'ERROR', output_mode: 'files_with_matches' }, ['-l', 'ERROR']],
  ['inverted', { pattern: 'task', invert_match: true, glob: '*.txt' }, ['-v', '-g', '*.txt', 'task']],
  ['context', { pattern: 'kiss', context: 1 }, ['-C', '1', 'kiss']],
  ['multiline on', { pattern: 'task', multiline: true }, ['-U', 'task']],
  ['multiline across lines', { pattern: 'one\\ntask', multiline: true }, ['-U', 'one\\ntask']],
  ['no match', { pattern: 'printComments' }, ['printComments']],
];

function rgLines(args: string[]): string[] {
  return rg(root, [...RG_CONTENT, '-i', ...args], args.includes('--') ? { paths: [] } : {})
    .lines.filter((l) => !/binary file matches/.test(l))
    .map((l) => l.replace(/\r$/, ''));
}

async function ours(input: Record<string, unknown>): Promise<string[]> {
  const r = await rt.call('grep', { head_limit: 0, case_insensitive: true, ...input });
  assert.equal(r.isError, false, r.content);
  const spill = r.meta?.truncated?.spillPath;
  const text = typeof spill === 'string' ? readFileSync(spill, 'utf8') : r.content;
  removeSpills(r);
  if (Number(r.meta?.files) === 0 || text.startsWith('No ')) return [];
  return text.split('\n').filter((l) => l !== '' && !l.startsWith('[note:') && !l.startsWith('[truncated:'));
}

for (const [what, input, rgArgs] of cases) {
  test(`grep -i parity with ripgrep: ${what}`, async () => {
    requireTool('rg');
    const mine = await ours(input);
    assert.deepEqual(mine, rgLines(rgArgs));
    if (what !== 'no match') assert.ok(mine.length > 0, 'a parity case must find something');
  });
}
