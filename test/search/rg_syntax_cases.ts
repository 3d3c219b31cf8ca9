/**
 * The ripgrep-syntax pattern table: each pattern goes through MewCode's grep and through a live rg
 * over the tree below. `rg` is the pattern handed to rg when it differs: rg 13 (the one Debian ships)
 * lacks a few rg 14 spellings that MewCode accepts with rg 14's meaning, so the same search is written
 * in rg 13's syntax. `error`: rg rejects it and so must MewCode (never a silent change of meaning).
 */
export interface SyntaxCase {
  pattern: string;
  rg?: string;
  ignoreCase?: boolean;
  multiline?: boolean;
  error?: true;
}

export const SYNTAX_TREE: Record<string, string> = {
  'code.rs': [
    'fn main() {',
    '    let x = 0x41;',
    '    assert!(x == 65); // TODO check',
    '    debug_assert_eq!(a, b);',
    '    println!("{}", HTTP_STATUS_OK);',
    '}',
    'import foo from "bar";',
    '  import nested',
    'foo.bar foo\tbar foo',
    'foobar FOOBAR FooBar',
    'path/to/file a/b',
    'aaa aa a',
    '',
    'end;',
    '',
  ].join('\n'),
  'unicode.txt': [
    'café naïve résumé',
    'Ελληνικά κείμενο ΑΒΓ',
    'emoji 😀 grin 😃',
    '中文字符 and ascii',
    'Straße STRASSE strasse',
    'ſ long s and K kelvin',
    'tab\there',
    'MAX_VALUE ABCDEF xyz',
    '٣٤٥ arabic digits 123',
    'x',
    '',
  ].join('\n'),
  'sub/notes.md': [
    '# Title',
    'TODO: write',
    'todo lower',
    'Todo mixed',
    'done.',
    '(parens) [brackets] {braces}',
    '',
  ].join('\n'),
};

export const SYNTAX_CASES: SyntaxCase[] = [
  // inline flags and flag groups
  { pattern: '(?i)todo' },
  { pattern: '(?i)TODO(?-i) check' },
  { pattern: '(?i:foo)bar' },
  { pattern: 'FOO(?i:bar)' },
  { pattern: '(?m)^import' },
  { pattern: '(?-m)^import' },
  { pattern: '(?s)foo.bar' },
  { pattern: '(?x) foo \\. bar  # a comment' },
  { pattern: '(?U)a+' },
  { pattern: '(?x)a+ ?' },
  { pattern: '(?x)a{2} ?' },
  { pattern: '(?i)straße' },
  { pattern: '(?i)k' },
  { pattern: '(?i)[a-c]{3}' },
  { pattern: 'todo', ignoreCase: true },
  { pattern: '(?-i)Todo', ignoreCase: true },
  // groups
  { pattern: '(?P<name>foo)bar' },
  { pattern: '(?<name>foo)bar', rg: '(?P<name>foo)bar' },
  { pattern: '(?:foo|FOO)bar' },
  { pattern: '(?P<a>x)(?P<a>y)', error: true },
  { pattern: '()' },
  { pattern: 'a|' },
  // anchors and boundaries
  { pattern: '\\Aimport' },
  { pattern: 'foo\\z' },
  { pattern: '\\bfoo\\b' },
  { pattern: '\\Bbar' },
  { pattern: '\\bκείμενο\\b' },
  { pattern: '\\<import', rg: '\\bimport' },
  { pattern: 'foo\\b{end}', rg: 'foo\\b' },
  { pattern: '^$' },
  { pattern: ';$' },
  // classes
  { pattern: '[[:upper:]]{3,}' },
  { pattern: '[[:^alpha:][:digit:]]+x' },
  { pattern: '[\\w&&[^\\d]]{6}' },
  { pattern: '[a-z--aeiou]{4}' },
  { pattern: '[\\d~~[0-5]]' },
  { pattern: '[]a]' },
  { pattern: '[^]a]x' },
  { pattern: '[a-]b' },
  { pattern: '[\\w-]+' },
  { pattern: '[a-z-\\d]{3}' },
  { pattern: '\\w+' },
  { pattern: '\\d' },
  { pattern: '\\s\\S' },
  { pattern: '\\W\\w' },
  { pattern: '(?-u)\\w+ing' },
  { pattern: '(?-u)\\w+é', error: true },
  // Unicode classes and escapes
  { pattern: '\\pL{5}' },
  { pattern: '\\p{Greek}+' },
  { pattern: '\\p{greek}' },
  { pattern: '\\p{sc=Han}' },
  { pattern: '\\p{Uppercase_Letter}{2}' },
  { pattern: '\\PL\\pN' },
  { pattern: '\\p{Lu}', ignoreCase: true },
  // Rust's name lookup: an `is` prefix, UCD aliases, binary properties before categories
  { pattern: '\\p{IsGreek}+' },
  { pattern: '\\p{Is_Lu}{2}' },
  { pattern: '\\p{digit}' },
  { pattern: '\\p{punct}' },
  { pattern: '\\p{space}x' },
  { pattern: '\\p{cntrl}' },
  { pattern: '\\p{gc=Sc}' },
  { pattern: '\\p{Sc}', error: true },
  { pattern: '\\p{LC}', error: true },
  { pattern: '\\p{Cs}', error: true },
  { pattern: '\\p{Unknown}', error: true },
  { pattern: '\\p{isc}', error: true },
  { pattern: '\\x41' },
  { pattern: '\\x41ssert' },
  { pattern: '\\u00e9' },
  { pattern: 'caf\\u{e9}', rg: 'caf\\x{e9}' },
  { pattern: '\\x{1F600}' },
  { pattern: '\\U0001F603' },
  { pattern: '\\t' },
  { pattern: '\\/', rg: '/' },
  { pattern: '\\.' },
  // repetition
  { pattern: 'a{2}' },
  { pattern: 'a{2,}' },
  { pattern: 'a{ 2 }' },
  { pattern: 'a{2 , 3}' },
  { pattern: 'a{1,2}?' },
  { pattern: 'a++' },
  { pattern: '(?:a{2}){2}' },
  { pattern: 'o{0}f' },
  // the empty pattern matches every line
  { pattern: '' },
  // dot: any character but \n, an emoji being one character
  { pattern: 'emoji . grin' },
  { pattern: '^.$' },
  // multiline
  { pattern: '\\{\\n\\s+let', multiline: true },
  { pattern: '\\Afn', multiline: true },
  // an empty match before a character outside the BMP (the emoji line) moves on to the next line
  { pattern: 'q*', multiline: true },
  // errors in rg: an error here too
  { pattern: '\\h', error: true },
  { pattern: 'a{,3}', error: true },
  { pattern: 'x{a}', error: true },
  { pattern: '{', error: true },
  { pattern: '(foo)\\1', error: true },
  { pattern: '[a&&]', error: true },
  { pattern: '\\p{NotAProperty}', error: true },
  { pattern: '(?z)x', error: true },
  { pattern: '[z-a]', error: true },
  { pattern: 'a{3,2}', error: true },
  { pattern: 'a\\nb', error: true },
  { pattern: '[\\n]', error: true },
  { pattern: '[\\x0A]', error: true },
  { pattern: '[\\d-z]', error: true },
  { pattern: '[\\pL-z]', error: true },
];
