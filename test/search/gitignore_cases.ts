/**
 * The gitignore case table, from gitignore(5) and git's own t0008-ignores tests: each case is a tree
 * (ignore files included) that the walker must filter exactly as `git ls-files -o --exclude-standard`
 * does. Paths ending in `/` are empty directories' files named `.keep` (git lists files only).
 */
export interface IgnoreCase {
  name: string;
  files: Record<string, string>;
}

const touch = (...paths: string[]) => Object.fromEntries(paths.map((p) => [p, '']));

export const IGNORE_CASES: IgnoreCase[] = [
  {
    name: 'foo/** then !foo/bar.js re-includes it',
    files: { '.gitignore': 'foo/**\n!foo/bar.js\n', ...touch('foo/bar.js', 'foo/baz.js', 'foo/sub/x.js') },
  },
  {
    name: 'foo/**/** then !foo/bar.js',
    files: { '.gitignore': 'foo/**/**\n!foo/bar.js\n', ...touch('foo/bar.js', 'foo/baz.js') },
  },
  {
    name: 'abc/** matches inside abc only',
    files: { '.gitignore': 'abc/**\n', ...touch('abc/x', 'abc/y/z', 'xabc/q', 'd/abc/e') },
  },
  { name: 'a UTF-8 BOM at the start is skipped', files: { '.gitignore': '\ufeff*.log\n', ...touch('a.log', 'b.txt') } },
  { name: 'CRLF lines', files: { '.gitignore': '*.log\r\n!keep.log\r\n', ...touch('a.log', 'keep.log', 'c.txt') } },
  { name: 'an unterminated bracket matches nothing', files: { '.gitignore': 'src/[q\n', ...touch('src/[q', 'src/q') } },
  { name: 'an empty bracket matches nothing', files: { '.gitignore': '*.[]\n', ...touch('a.[]', 'a.x') } },
  { name: 'a malformed [:class:] matches nothing', files: { '.gitignore': '[[:bogus:]]x\n', ...touch('bx', 'cx') } },
  { name: 'bracket sets', files: { '.gitignore': '*.[oa]\n', ...touch('x.o', 'x.a', 'x.c') } },
  { name: 'bracket negation with !', files: { '.gitignore': '[!a]*.txt\n', ...touch('a.txt', 'b.txt', 'ab.txt') } },
  { name: 'bracket negation with ^', files: { '.gitignore': '[^a]*.md\n', ...touch('a.md', 'b.md') } },
  { name: 'bracket ranges', files: { '.gitignore': '[a-c].md\n', ...touch('a.md', 'c.md', 'd.md') } },
  { name: 'an inverted range matches nothing', files: { '.gitignore': '[z-a]x\n', ...touch('ax', 'zx', 'mx') } },
  { name: 'a [:digit:] class', files: { '.gitignore': '[[:digit:]]*\n', ...touch('1.txt', 'x.txt') } },
  { name: 'a ] first in a bracket is literal', files: { '.gitignore': '[]a]x\n', ...touch(']x', 'ax', 'bx') } },
  { name: 'an escaped ] in a bracket', files: { '.gitignore': '[\\]b]y\n', ...touch(']y', 'by', 'cy') } },
  { name: 'a - at the end of a bracket is literal', files: { '.gitignore': '[a-]z\n', ...touch('az', '-z', 'bz') } },
  { name: 'an escaped star is literal', files: { '.gitignore': '\\*star\n', ...touch('*star', 'xstar') } },
  { name: 'an escaped question mark is literal', files: { '.gitignore': 'q\\?\n', ...touch('q?', 'qx') } },
  { name: 'a trailing lone backslash matches nothing', files: { '.gitignore': 'foo\\\n', ...touch('foo', 'foo\\') } },
  {
    name: 'an escaped trailing space is kept',
    files: { '.gitignore': 'trailing\\ \n', ...touch('trailing ', 'trailing') },
  },
  {
    name: 'unescaped trailing spaces are dropped',
    files: { '.gitignore': 'spaces   \n', ...touch('spaces', 'spaces ') },
  },
  {
    name: 'comments and escaped # and !',
    files: { '.gitignore': '#comment\n\\#hash\n\\!bang\n', ...touch('#comment', '#hash', '!bang') },
  },
  { name: 'a leading slash anchors', files: { '.gitignore': '/root.txt\n', ...touch('root.txt', 'sub/root.txt') } },
  { name: 'a middle slash anchors', files: { '.gitignore': 'doc/frotz/\n', ...touch('doc/frotz/a', 'a/doc/frotz/b') } },
  {
    name: 'a name without slash matches at any depth',
    files: { '.gitignore': 'frotz/\n', ...touch('frotz/a', 'x/frotz/c', 'frotz2/d') },
  },
  {
    name: 'a directory-only rule skips a file of that name',
    files: { '.gitignore': 'build/\n', ...touch('build', 'sub/build/x') },
  },
  { name: 'leading **/', files: { '.gitignore': '**/foo\n', ...touch('foo', 'a/foo', 'a/b/foo', 'a/foox') } },
  {
    name: 'leading **/ with a path',
    files: { '.gitignore': '**/foo/bar\n', ...touch('foo/bar', 'a/foo/bar', 'a/foo/baz') },
  },
  { name: 'a middle /**/', files: { '.gitignore': 'a/**/b\n', ...touch('a/b', 'a/x/b', 'a/x/y/b', 'a/bb') } },
  { name: '** inside a name is a single *', files: { '.gitignore': 'a**b\n', ...touch('axxb', 'ab', 'a/x/b') } },
  { name: '** alone ignores everything', files: { '.gitignore': '**\n!.gitignore\n', ...touch('a', 'b/c') } },
  {
    name: 'a file in an ignored directory cannot be re-included',
    files: { '.gitignore': 'logs/\n!logs/keep.txt\n', ...touch('logs/keep.txt', 'logs/x') },
  },
  {
    name: 'dir/* then !dir/sub re-includes sub',
    files: { '.gitignore': 'foo/*\n!foo/bar\n', ...touch('foo/bar/x', 'foo/baz') },
  },
  {
    name: 'negation after a wildcard',
    files: { '.gitignore': '*.log\n!important.log\n', ...touch('a.log', 'important.log', 'sub/important.log') },
  },
  {
    name: 'a deeper .gitignore overrides',
    files: { '.gitignore': '*.txt\n', 'sub/.gitignore': '!a.txt\n', ...touch('a.txt', 'sub/a.txt', 'sub/b.txt') },
  },
  {
    name: 'the whitelist idiom',
    files: { '.gitignore': '/*\n!/keep/\n!.gitignore\n', ...touch('keep/a', 'other/b', 'c') },
  },
  {
    name: '? matches one character, not /',
    files: { '.gitignore': '?.js\na?b\n', ...touch('a.js', 'ab.js', 'a/b', 'axb') },
  },
  {
    name: 'a wildcard in a path',
    files: { '.gitignore': 'doc/*.txt\n', ...touch('doc/a.txt', 'doc/sub/b.txt', 'x/doc/c.txt') },
  },
  { name: 'hello.* ', files: { '.gitignore': 'hello.*\n', ...touch('hello.c', 'hello.h', 'hellox', 'sub/hello.y') } },
  { name: '*/ ignores every directory', files: { '.gitignore': '*/\n', ...touch('a/x', 'b') } },
  {
    name: 'a re-included hidden file',
    files: { '.gitignore': '.*\n!.env\n!.gitignore\n', ...touch('.env', '.secret', 'x') },
  },
  {
    name: 'a pattern with a leading slash and **',
    files: { '.gitignore': '/**/x\n', ...touch('x', 'a/x', 'a/b/x', 'y') },
  },
  { name: 'blank and space-only lines are no rules', files: { '.gitignore': '\n   \n*.o\n', ...touch('a.o', 'b') } },
];
