import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { generateFixture } from '../../bench/fixture.ts';
import { RG_CONTENT, rg } from '../helpers/rg.ts';
import { removeSpills, runtimeAt } from '../helpers/runtime.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir } from '../helpers/temp.ts';

// The same searches through MewCode's grep and through ripgrep (installed by .ci/run) on a generated
// tree with ignore files, node_modules, binaries, multi-MB files and minified lines.
const root = tempDir();
generateFixture(root, { files: 1500, seed: 7 });
const rt = runtimeAt(root, { workers: 2 });

type Case = [string, Record<string, unknown>, string[]];
const cases: Case[] = [
  ['a literal', { pattern: 'TODO' }, ['TODO']],
  ['a fixed string with regex characters', { pattern: 'console.log(', fixed_strings: true }, ['-F', 'console.log(']],
  ['case-insensitive', { pattern: 'error', case_insensitive: true }, ['-i', 'error']],
  ['a regex with classes', { pattern: 'function\\s+\\w+Handler' }, ['function\\s+\\w+Handler']],
  ['anchors', { pattern: '^\\}$', glob: '*.go' }, ['-g', '*.go', '^\\}$']],
  ['empty lines', { pattern: '^$', glob: '*.md' }, ['-g', '*.md', '^$']],
  ['word boundaries', { pattern: '\\bstate\\b', glob: '*.py' }, ['-g', '*.py', '\\bstate\\b']],
  ['context around matches', { pattern: 'TODO', context: 2, glob: '*.md' }, ['-C', '2', '-g', '*.md', 'TODO']],
  [
    'after-context',
    { pattern: 'throw new Error', after: 1, glob: '*.py' },
    ['-A', '1', '-g', '*.py', 'throw new Error'],
  ],
  ['before-context', { pattern: 'Handler\\(', before: 3, glob: '*.go' }, ['-B', '3', '-g', '*.go', 'Handler\\(']],
  ['files with matches', { pattern: 'TODO', output_mode: 'files_with_matches' }, ['-l', 'TODO']],
  ['counts', { pattern: 'TODO', output_mode: 'count' }, ['-c', 'TODO']],
  [
    'files, case-insensitive regex',
    { pattern: 'error \\d+', case_insensitive: true, output_mode: 'files_with_matches' },
    ['-l', '-i', 'error \\d+'],
  ],
  ['counts of a regex', { pattern: '\\d{3}', output_mode: 'count' }, ['-c', '\\d{3}']],
  [
    'ignored and hidden files too',
    { pattern: 'TODO', include_ignored: true, output_mode: 'files_with_matches' },
    ['-uu', '-l', 'TODO'],
  ],
  ['a subdirectory', { pattern: 'TODO', path: 'packages', output_mode: 'count' }, ['-c', '--', 'TODO', 'packages']],
  ['a negated glob', { pattern: 'Handler', glob: '!*.ts', output_mode: 'count' }, ['-c', '-g', '!*.ts', 'Handler']],
  [
    'a brace glob',
    { pattern: 'Handler', glob: '*.{ts,tsx}', output_mode: 'count' },
    ['-c', '-g', '*.{ts,tsx}', 'Handler'],
  ],
  [
    'a glob with a slash',
    { pattern: 'TODO', glob: 'packages/**/src/**/*.go' },
    ['-g', 'packages/**/src/**/*.go', 'TODO'],
  ],
  [
    'multiline',
    { pattern: '\\{\\n\\s+// TODO', multiline: true, glob: '*.ts' },
    ['-U', '-g', '*.ts', '\\{\\n\\s+// TODO'],
  ],
  ['alternation', { pattern: '(user|order)Cache' }, ['(user|order)Cache']],
  ['a counted class', { pattern: '[A-Z]{5}' }, ['[A-Z]{5}']],
  [
    'fixed and case-insensitive',
    { pattern: 'todo:', fixed_strings: true, case_insensitive: true },
    ['-F', '-i', 'todo:'],
  ],
  ['an escaped dot', { pattern: '\\.log\\(', output_mode: 'count' }, ['-c', '\\.log\\(']],
  ['no match at all', { pattern: 'zzzz_not_here', output_mode: 'files_with_matches' }, ['-l', 'zzzz_not_here']],
  [
    'a single file',
    { pattern: 'TODO', path: 'data/big2.txt', output_mode: 'count' },
    ['-c', '--', 'TODO', 'data/big2.txt'],
  ],
];

/** ripgrep's lines, normalised: binary notices dropped, long lines cut like ours. */
function rgLines(args: string[]): string[] {
  // Always a path: with none, ripgrep would search its (non-TTY) stdin. A case with `--` names it.
  const lines = rg(root, ['--no-require-git', ...RG_CONTENT, ...args], {
    maxBuffer: 256 * 1024 * 1024,
    ...(args.includes('--') ? { paths: [] } : {}),
  }).lines.filter((l) => !/: binary file matches/.test(l));
  return lines.map((l) => {
    const m = /^(.*?)([:-])(\d+)\2(.*)$/.exec(l);
    return m && !args.includes('-c') && !args.includes('-l')
      ? `${m[1]}${m[2]}${m[3]}${m[2]}${(m[4] ?? '').slice(0, 500)}`
      : l;
  });
}

async function ourLines(input: Record<string, unknown>): Promise<string[]> {
  const r = await rt.call('grep', { head_limit: 0, ...input });
  assert.equal(r.isError, false, r.content);
  if (Number(r.meta?.files) === 0) return [];
  // Over the output budget, the whole text is in the spill file.
  const spill = r.meta?.truncated?.spillPath;
  const text = spill ? readFileSync(spill, 'utf8') : r.content;
  removeSpills(r); // megabytes in the shared spill directory of the OS temp dir otherwise
  return text
    .split('\n')
    .filter((l) => !l.startsWith('[note:') && !l.startsWith('[truncated:'))
    .map((l) => l.replace(/ … \[truncated: line has [\d,]+ characters\]$/, ''));
}

for (const [what, input, rgArgs] of cases) {
  test(`grep parity with ripgrep: ${what}`, async () => {
    requireTool('rg'); // a failure naming the package, never a skip: a green run means parity was checked
    const ours = await ourLines(input);
    const theirs = rgLines(rgArgs);
    assert.deepEqual(ours, theirs);
    if (what !== 'no match at all') assert.ok(ours.length > 0, 'a parity case must find something');
  });
}
