/**
 * grep's file filters and line options as the model passes them, against live ripgrep: a list of
 * globs with `!` (the last match wins), ripgrep's types, invert, only-matching and max-count.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rg } from '../helpers/rg.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

const root = tempDir();
writeTree(root, {
  'a.ts': 'key one\nother\nkey key two\n',
  'b.tsx': 'key b\n',
  'c.js': 'key c\nplain\n',
  'sub/d.ts': 'key d\n',
  'sub/e.py': 'key e\n',
  'sub/Dockerfile': 'key docker\n',
});
const rt = runtimeAt(root, { workers: 2 });

const rgOut = (args: string[]): string =>
  rg(root, ['--sort', 'path', '-n', '--with-filename', '--no-heading', ...args]).out.trimEnd();

const cases: [string, Record<string, unknown>, string[]][] = [
  [
    'globs with a negation, later wins',
    { glob: ['*.ts', '!sub/**', 'sub/d.ts'] },
    ['-g', '*.ts', '-g', '!sub/**', '-g', 'sub/d.ts'],
  ],
  ['only negations', { glob: ['!*.ts', '!sub'] }, ['-g', '!*.ts', '-g', '!sub']],
  ['a type', { type: 'ts' }, ['-t', 'ts']],
  ['two types', { type: ['py', 'js'] }, ['-t', 'py', '-t', 'js']],
  ['a type with a name glob', { type: 'docker' }, ['-t', 'docker']],
  ['a type and a glob', { type: 'ts', glob: '!b.tsx' }, ['-t', 'ts', '-g', '!b.tsx']],
  ['invert', { invert_match: true }, ['-v']],
  ['only matching', { only_matching: true, pattern: 'ke.' }, ['-o']],
  ['max count', { max_count: 1 }, ['-m', '1']],
  ['invert with a count', { invert_match: true, output_mode: 'count' }, ['-v', '-c']],
];
for (const [what, input, args] of cases) {
  test(`grep filters: ${what} as ripgrep`, async () => {
    requireTool('rg');
    const pattern = (input.pattern as string | undefined) ?? 'key';
    const r = await rt.call('grep', { pattern, head_limit: 0, ...input });
    assert.equal(r.isError, false, r.content);
    const ours = r.content.split('\n').slice(0, Number(r.meta?.results)).join('\n');
    assert.equal(ours, rgOut([...args, '-e', pattern]));
  });
}

test('grep filters: an unknown type is an invalid argument naming the types', async () => {
  const r = await rt.call('grep', { pattern: 'key', type: 'cobol' });
  assert.equal(r.code, 'invalid_args');
  assert.match(r.content, /^Unknown file type "cobol"; the types are .*\bts\b/);
});
