/**
 * The flag table: every flag the CLI takes, which commands take it, its value and its help line, and
 * the short letters each command gives meaning to. Parsing (args.ts) and help (help.ts) both read it,
 * so `--help` and the parser cannot disagree. A short letter means one thing per command: grep's `-A`
 * is after-context as in ripgrep, so there `--allow-all` is spelled out (test/cli_flags.test.ts).
 */
import { permissionFlagSpecs } from '../core/permission_kinds.ts';

export const COMMANDS = [
  'run',
  'call',
  'batch',
  'read',
  'edit',
  'grep',
  'glob',
  'tools',
  'mcp',
  'bench',
  'index',
  'history',
  'undo',
  'redo',
  'stats',
] as const;
/** `agent` runs a task (`run`, `-p`, a quoted task with spaces, or stdin); `help` prints help. */
export type Command = Exclude<(typeof COMMANDS)[number], 'run'> | 'agent';

export interface FlagSpec {
  type: 'string' | 'boolean';
  /** Repeatable: every occurrence counts (`-e a -e b`, `-uu`). */
  multiple?: boolean;
  /** The value's name in help; string flags only. */
  arg?: string;
  help: string;
  /** Commands that take it; absent: every command (a global flag). */
  commands?: readonly Command[];
}

const grep = ['grep'] as const;
const search = ['grep', 'glob'] as const;

export const FLAGS = {
  root: { type: 'string', arg: 'DIR', help: 'the directory tools work in (default: the current directory)' },
  workers: { type: 'string', arg: 'N', help: 'read-lane worker threads (default: available cores; 0 runs inline)' },
  json: { type: 'boolean', help: "print the whole result object as JSON (grep: ripgrep's JSON Lines)" },
  help: { type: 'boolean', help: 'show help (mewcode help <command>, mewcode <command> --help)' },
  version: { type: 'boolean', help: 'show the version' },
  ...permissionFlagSpecs(),
  'allow-all': { type: 'boolean', help: 'grant everything (the sandbox, the blacklist and denials still apply)' },
  mode: { type: 'string', arg: 'M', help: 'default | acceptEdits | plan | bypass' },
  sandbox: { type: 'boolean', help: 'run bash inside bubblewrap (fails when it cannot start; never falls back)' },
  trust: {
    type: 'boolean',
    help: "trust this folder's .mewcode settings (hooks, allow rules, modes, MCP servers) until they change",
  },
  verbose: { type: 'boolean', help: 'print every permission decision on stderr' },
  'limit-memory': { type: 'string', arg: 'SIZE', help: 'memory per bash command: 512M, 4G (default), none' },
  'limit-pids': { type: 'string', arg: 'N', help: 'processes per bash command (default 1024), none' },
  'limit-cpu': { type: 'string', arg: 'TIME', help: 'CPU time per bash command: 60s, 5m, none (the default)' },
  'no-index': { type: 'boolean', help: 'grep scans every file, even where a search index exists' },
  color: { type: 'string', arg: 'WHEN', help: 'auto (default: on a terminal, unless NO_COLOR) | always | never' },
  // agent
  prompt: { type: 'string', arg: 'TASK', help: 'run the agent on TASK', commands: ['agent'] },
  provider: { type: 'string', arg: 'P', help: 'anthropic (default) | openai', commands: ['agent'] },
  model: { type: 'string', arg: 'M', help: 'the model (default: the provider’s)', commands: ['agent'] },
  'base-url': { type: 'string', arg: 'URL', help: 'the provider’s API address (a local server)', commands: ['agent'] },
  'max-turns': { type: 'string', arg: 'N', help: 'stop after N model turns', commands: ['agent'] },
  'output-format': {
    type: 'string',
    arg: 'F',
    help: 'text (default) | json (the whole transcript) | stream-json (one JSON event per line)',
    commands: ['agent'],
  },
  'audit-log': {
    type: 'string',
    arg: 'PATH|off',
    help: 'the audit trail, JSON Lines (default: ~/.local/share/mewcode/audit/audit.jsonl); off: none',
    commands: ['agent', 'mcp'],
  },
  'audit-inputs': {
    type: 'boolean',
    help: 'the audit trail keeps each call’s arguments, not only their digest and size',
    commands: ['agent', 'mcp'],
  },
  // mcp over HTTP
  http: { type: 'boolean', help: 'serve MCP over Streamable HTTP at /mcp instead of stdio', commands: ['mcp'] },
  listen: {
    type: 'string',
    arg: 'HOST:PORT',
    help: 'where --http listens (default 127.0.0.1:8431; not loopback needs --token-file)',
    commands: ['mcp'],
  },
  'token-file': {
    type: 'string',
    arg: 'PATH',
    help: 'the bearer token clients must send (made, mode 0600, if absent; default ~/.local/share/mewcode/mcp-http.token)',
    commands: ['mcp'],
  },
  'allowed-origin': {
    type: 'string',
    arg: 'ORIGIN',
    help: 'a browser Origin --http accepts besides loopback pages (repeatable)',
    commands: ['mcp'],
    multiple: true,
  },
  'tls-cert': {
    type: 'string',
    arg: 'FILE',
    help: 'serve --http over TLS with this certificate (PEM)',
    commands: ['mcp'],
  },
  'tls-key': { type: 'string', arg: 'FILE', help: 'the TLS private key (PEM) for --tls-cert', commands: ['mcp'] },
  'drain-grace': {
    type: 'string',
    arg: 'SECONDS',
    help: 'on SIGTERM, how long running calls may finish before they are stopped (default 10)',
    commands: ['mcp'],
  },
  'resume-grace': {
    type: 'string',
    arg: 'SECONDS',
    help: 'how long a call whose stream closed waits for its client to resume before it is stopped (default 10)',
    commands: ['mcp'],
  },
  // read
  offset: { type: 'string', arg: 'N', help: 'first line to show (1-based)', commands: ['read'] },
  limit: { type: 'string', arg: 'N', help: 'most lines (read) or paths (glob) to show', commands: ['read', 'glob'] },
  // edit
  old: {
    type: 'string',
    arg: 'TEXT',
    help: 'the exact text to replace (repeat with --new for several)',
    commands: ['edit'],
    multiple: true,
  },
  new: {
    type: 'string',
    arg: 'TEXT',
    help: 'its replacement, paired with the --old before it',
    commands: ['edit'],
    multiple: true,
  },
  'replace-all': { type: 'boolean', help: 'replace every occurrence, not exactly one', commands: ['edit'] },
  // tools
  format: { type: 'string', arg: 'F', help: 'anthropic | openai | openai-strict', commands: ['tools'] },
  // grep
  regexp: {
    type: 'string',
    arg: 'PAT',
    help: 'a pattern (repeatable: lines matching any)',
    commands: grep,
    multiple: true,
  },
  'ignore-case': { type: 'boolean', help: 'ignore case', commands: grep },
  'fixed-strings': { type: 'boolean', help: 'patterns are literal strings', commands: grep },
  'word-regexp': { type: 'boolean', help: 'match whole words only', commands: grep },
  'invert-match': { type: 'boolean', help: 'print the lines that do not match', commands: grep },
  multiline: { type: 'boolean', help: 'let matches span lines', commands: grep },
  glob: {
    type: 'string',
    arg: 'GLOB',
    help: 'only files matching GLOB; !GLOB excludes (repeatable, later wins)',
    commands: grep,
    multiple: true,
  },
  type: {
    type: 'string',
    arg: 'TYPE',
    help: 'only files of TYPE (ripgrep’s names: ts, py, md…)',
    commands: grep,
    multiple: true,
  },
  'type-not': { type: 'string', arg: 'TYPE', help: 'no files of TYPE', commands: grep, multiple: true },
  'files-with-matches': { type: 'boolean', help: 'print only the paths of files with matches', commands: grep },
  count: { type: 'boolean', help: 'print path:N, matching lines per file', commands: grep },
  'only-matching': { type: 'boolean', help: 'print only the matched parts, one per line', commands: grep },
  'max-count': { type: 'string', arg: 'N', help: 'at most N matching lines per file', commands: grep },
  context: { type: 'string', arg: 'N', help: 'N lines of context around each match', commands: grep },
  before: { type: 'string', arg: 'N', help: 'N lines of context before each match', commands: grep },
  after: { type: 'string', arg: 'N', help: 'N lines of context after each match', commands: grep },
  'head-limit': { type: 'string', arg: 'N', help: 'at most N results (default: all)', commands: grep },
  // grep: the rest of ripgrep's flags that MewCode gives a meaning (rg_refused.ts names the others and why)
  'after-context': { type: 'string', arg: 'N', help: 'ripgrep’s name for --after', commands: grep },
  'before-context': { type: 'string', arg: 'N', help: 'ripgrep’s name for --before', commands: grep },
  'line-regexp': { type: 'boolean', help: 'match whole lines only', commands: grep },
  'smart-case': { type: 'boolean', help: 'ignore case unless the pattern has an upper-case letter', commands: grep },
  'case-sensitive': { type: 'boolean', help: 'match case (the default; undoes -i and -S)', commands: grep },
  file: {
    type: 'string',
    arg: 'FILE',
    help: 'patterns from FILE, one a line (repeatable; - reads stdin)',
    commands: grep,
    multiple: true,
  },
  'line-number': { type: 'boolean', help: 'print line numbers (the default on a terminal)', commands: grep },
  'no-line-number': { type: 'boolean', help: 'print no line numbers', commands: grep },
  'with-filename': { type: 'boolean', help: 'print the path, even when one file is searched', commands: grep },
  'no-filename': { type: 'boolean', help: 'print no paths', commands: grep },
  heading: { type: 'boolean', help: 'group lines under their file’s path (the default on a terminal)', commands: grep },
  'no-heading': { type: 'boolean', help: 'the path on every line (the default piped)', commands: grep },
  pretty: { type: 'boolean', help: '--color always --heading --line-number', commands: grep },
  null: { type: 'boolean', help: 'a NUL byte after each path instead of : or a newline', commands: grep },
  trim: { type: 'boolean', help: 'leave out the spaces and tabs a line begins with', commands: grep },
  quiet: { type: 'boolean', help: 'print nothing; exit 0 at the first match', commands: grep },
  'files-without-match': { type: 'boolean', help: 'print the paths of files searched without a match', commands: grep },
  'count-matches': { type: 'boolean', help: 'print path:N, matches (not lines) per file', commands: grep },
  passthru: {
    type: 'boolean',
    help: 'print every line of the files with matches, the others as context',
    commands: grep,
  },
  text: {
    type: 'boolean',
    help: 'search binary files (a NUL byte) as text, printing their matching lines as they are',
    commands: grep,
  },
  replace: {
    type: 'string',
    arg: 'TEXT',
    help: 'print each match replaced by TEXT ($1, $name: its groups)',
    commands: grep,
  },
  // rg's negations: each undoes its flag given before it (OVERRIDES)
  'no-fixed-strings': { type: 'boolean', help: 'undoes -F', commands: grep },
  'no-multiline': { type: 'boolean', help: 'undoes -U', commands: grep },
  'no-text': { type: 'boolean', help: 'undoes -a', commands: grep },
  'no-trim': { type: 'boolean', help: 'undoes --trim', commands: grep },
  'no-hidden': { type: 'boolean', help: 'undoes --hidden', commands: grep },
  ignore: { type: 'boolean', help: 'undoes --no-ignore', commands: grep },
  messages: { type: 'boolean', help: 'undoes --no-messages', commands: grep },
  // rg's --files; bench's --files N takes the name (args.ts spells grep's --files this way)
  'list-files': {
    type: 'boolean',
    help: 'ripgrep’s --files: list the files that would be searched, and search nothing',
    commands: grep,
  },
  'type-list': { type: 'boolean', help: 'list the file types -t takes, with their globs', commands: grep },
  'no-messages': { type: 'boolean', help: 'no notes about skipped or unreadable files', commands: grep },
  threads: { type: 'string', arg: 'N', help: 'ripgrep’s name for --workers (0: the default)', commands: grep },
  crlf: { type: 'boolean', help: 'no-op: a line’s \\r before its \\n is never part of it', commands: grep },
  mmap: { type: 'boolean', help: 'no-op: files are read, never mapped', commands: grep },
  'no-mmap': { type: 'boolean', help: 'no-op: files are read, never mapped', commands: grep },
  'no-config': { type: 'boolean', help: 'no-op: MewCode reads no ripgrep config file', commands: grep },
  'no-require-git': { type: 'boolean', help: 'no-op: .gitignore applies outside git repositories too', commands: grep },
  'line-buffered': { type: 'boolean', help: 'no-op: the lines print when the search ends', commands: grep },
  'block-buffered': { type: 'boolean', help: 'no-op: the lines print when the search ends', commands: grep },
  'output-mode': { type: 'string', arg: 'M', help: 'content | files_with_matches | count', commands: grep },
  // grep and glob
  hidden: { type: 'boolean', help: 'search hidden files and directories too', commands: search },
  'no-ignore': { type: 'boolean', help: 'do not honour .gitignore, .ignore, .mewcodeignore', commands: search },
  unrestricted: { type: 'boolean', help: '-u: --no-ignore; -uu: also --hidden', commands: grep, multiple: true },
  'include-ignored': { type: 'boolean', help: 'both --no-ignore and --hidden', commands: search },
  // glob
  extension: {
    type: 'string',
    arg: 'EXT',
    help: 'only files ending in .EXT (repeatable)',
    commands: ['glob'],
    multiple: true,
  },
  sort: {
    type: 'string',
    arg: 'S',
    help: 'path (default) | mtime, newest first (glob) | none (grep: any order, so path order)',
    commands: ['grep', 'glob'],
  },
  // history, undo, redo
  to: {
    type: 'string',
    arg: 'ID',
    help: 'take back every change after entry ID (the tree as right after it)',
    commands: ['undo'],
  },
  force: {
    type: 'boolean',
    help: 'restore files changed since the agent too (their current content is lost)',
    commands: ['undo', 'redo'],
  },
  // bench
  quick: { type: 'boolean', help: 'a short run', commands: ['bench'] },
  reps: { type: 'string', arg: 'N', help: 'repetitions per case', commands: ['bench'] },
  files: { type: 'string', arg: 'N', help: 'files in the generated tree', commands: ['bench'] },
  out: { type: 'string', arg: 'DIR', help: 'where to write the report', commands: ['bench'] },
} as const satisfies Record<string, FlagSpec>;
export type Flag = keyof typeof FLAGS;

/**
 * Flags that undo each other, as in rg: of those given, the last one counts and the others are
 * dropped (`-i -s` matches case, `-s -i` ignores it). `-c` beats `-l` in rg whatever the order
 * (grep_input.ts), so the two are not a pair here.
 */
export const OVERRIDES: readonly (readonly Flag[])[] = [
  ['ignore-case', 'case-sensitive', 'smart-case'],
  ['fixed-strings', 'no-fixed-strings'],
  ['multiline', 'no-multiline'],
  ['text', 'no-text'],
  ['trim', 'no-trim'],
  ['hidden', 'no-hidden'],
  ['no-ignore', 'ignore'],
  ['no-messages', 'messages'],
  ['line-number', 'no-line-number'],
  ['with-filename', 'no-filename'],
  ['heading', 'no-heading'],
  ['count', 'count-matches'],
  ['files-with-matches', 'files-without-match'],
  ['mmap', 'no-mmap'],
];

/** Short letters valid with every command, unless the command gives the letter its own meaning. */
export const GLOBAL_SHORTS: Readonly<Record<string, Flag>> = {
  h: 'help',
  V: 'version',
  A: 'allow-all',
  v: 'verbose',
};

/** Each command's own letters; they take precedence over the global ones (grep: -A, -v as ripgrep). */
export const COMMAND_SHORTS: Readonly<Record<Command, Readonly<Record<string, Flag>>>> = {
  agent: { p: 'prompt' },
  call: {},
  batch: {},
  read: {},
  edit: {},
  tools: {},
  mcp: {},
  bench: {},
  index: {},
  history: {},
  undo: {},
  redo: {},
  stats: {},
  grep: {
    e: 'regexp',
    i: 'ignore-case',
    F: 'fixed-strings',
    w: 'word-regexp',
    v: 'invert-match',
    U: 'multiline',
    g: 'glob',
    t: 'type',
    T: 'type-not',
    l: 'files-with-matches',
    c: 'count',
    o: 'only-matching',
    m: 'max-count',
    C: 'context',
    B: 'before',
    A: 'after',
    u: 'unrestricted',
    x: 'line-regexp',
    S: 'smart-case',
    s: 'case-sensitive',
    f: 'file',
    n: 'line-number',
    N: 'no-line-number',
    H: 'with-filename',
    I: 'no-filename',
    p: 'pretty',
    '0': 'null',
    q: 'quiet',
    r: 'replace',
    j: 'threads',
    a: 'text',
  },
  glob: { e: 'extension', H: 'hidden', I: 'no-ignore' },
};

/** The letters a command understands: its own, then the global ones it does not redefine. */
export function shortsOf(command: Command): Record<string, Flag> {
  const own = COMMAND_SHORTS[command];
  const taken = new Set(Object.values(own));
  const global = Object.entries(GLOBAL_SHORTS).filter(([letter, flag]) => !(letter in own) && !taken.has(flag));
  return { ...Object.fromEntries(global), ...own };
}

/** Whether `flag` is taken by `command`. */
export const takes = (command: Command, flag: Flag): boolean => {
  const only = (FLAGS[flag] as FlagSpec).commands;
  return only === undefined || only.includes(command);
};

/** The Deno-style permission flags (lib/core/permission_kinds.ts). */
export { PERMISSION_FLAGS } from '../core/permission_kinds.ts';
