/**
 * ripgrep's flags that `mewcode grep` refuses, each with why: a script written for rg that passes one
 * is told what MewCode cannot do and what to use instead, rather than that the flag is unknown. Every
 * other rg flag is in the flag table (flags.ts), as a flag MewCode implements or a no-op where MewCode
 * always does what it asks. docs/cli.md lists this table (test/cli_flags.test.ts checks it).
 */

export interface RefusedFlag {
  /** ripgrep's long names, without the dashes. */
  long: readonly string[];
  /** Its short letter, if it has one. */
  short?: string;
  why: string;
}

export const RG_REFUSED: readonly RefusedFlag[] = [
  {
    long: ['pcre2', 'engine', 'auto-hybrid-regex', 'no-pcre2-unicode', 'pcre2-version'],
    short: 'P',
    why: 'MewCode has one regex engine: ripgrep’s default syntax run by JavaScript’s (docs/search.md); no PCRE2',
  },
  {
    long: ['no-unicode'],
    why: 'patterns are always Unicode-aware (\\w, \\d, classes and case folding)',
  },
  {
    long: ['binary'],
    why: 'rg --binary reads a NUL byte as a line end and reports each binary file that matches in one line; MewCode skips binary files, or with -a searches them as text',
  },
  {
    long: ['follow'],
    short: 'L',
    why: 'the walk never follows symlinks, so a search cannot leave the paths the permissions allow',
  },
  {
    long: ['max-depth'],
    why: 'the grep tool searches the whole tree below its path: give a deeper path, or -g to narrow',
  },
  {
    long: ['max-filesize'],
    why: 'every file is searched, large ones in pieces: narrow with -g',
  },
  {
    long: ['one-file-system'],
    why: 'the walk does not tell file systems apart',
  },
  {
    long: ['search-zip', 'pre', 'pre-glob'],
    short: 'z',
    why: 'grep runs no program on the files it reads (decompressors, preprocessors): run them with bash',
  },
  {
    long: ['encoding', 'no-encoding'],
    short: 'E',
    why: 'files are read as UTF-8, or UTF-16 when a byte-order mark says so; there is no other encoding',
  },
  {
    long: ['null-data'],
    why: 'lines end at \\n (a \\r before it is dropped); no other line terminator',
  },
  {
    long: ['multiline-dotall'],
    why: '. never matches a newline, with -U too: write (?s) in the pattern',
  },
  {
    long: ['byte-offset', 'column', 'vimgrep'],
    short: 'b',
    why: 'grep answers with line numbers; columns and byte offsets are not part of its answer',
  },
  {
    long: ['max-columns', 'max-columns-preview'],
    short: 'M',
    why: 'MewCode cuts a line over 500 characters itself, saying how long it was',
  },
  {
    long: ['include-zero'],
    why: '-c lists the files with matches; the files searched without one are --files-without-match',
  },
  {
    long: ['sortr'],
    why: 'results come in ascending path order; pipe them through sort -r',
  },
  {
    long: ['type-add', 'type-clear'],
    why: 'the type table is fixed (--type-list): give the globs with -g',
  },
  {
    long: ['iglob', 'glob-case-insensitive'],
    why: 'globs match case as written: spell both cases in the glob ([Rr]eadme.md)',
  },
  {
    long: [
      'ignore-file',
      'ignore-file-case-insensitive',
      'no-ignore-dot',
      'no-ignore-exclude',
      'no-ignore-files',
      'no-ignore-global',
      'no-ignore-parent',
      'no-ignore-vcs',
      'no-ignore-messages',
    ],
    why: 'MewCode reads .mewcodeignore, .rgignore, .ignore, .gitignore, info/exclude and the global excludes file (docs/search.md), and --no-ignore lifts them all at once',
  },
  {
    long: ['colors'],
    why: 'the colours are ripgrep’s defaults (--color decides whether)',
  },
  {
    long: [
      'context-separator',
      'no-context-separator',
      'field-context-separator',
      'field-match-separator',
      'path-separator',
    ],
    why: 'lines print with ripgrep’s default separators (:, -, -- and /)',
  },
  {
    long: ['stats', 'debug', 'trace', 'dfa-size-limit', 'regex-size-limit'],
    why: 'ripgrep’s internals; MewCode’s are in the whole result: mewcode call grep \'{"pattern":"…"}\' --json',
  },
];

/** Why rg's `flag` (a long name, or a short letter) is refused, if it is. */
export function refusedWhy(flag: string): string | undefined {
  const entry = RG_REFUSED.find((r) => (flag.length === 1 ? r.short === flag : r.long.includes(flag)));
  return entry?.why;
}
