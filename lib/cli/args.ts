/**
 * Command-line parsing: find the command word, then parse with that command's flags (node:util
 * parseArgs, strict) and its short letters from the flag table (flags.ts). Every mistake becomes a
 * `UsageError` (exit 2) that says what was wrong and what is accepted. Nothing here reaches a model:
 * a task is only ever `run <task…>`, `-p <task>`, one quoted argument with spaces, or piped stdin
 * (mewcode.ts); a lone unknown word is a typo, answered with the nearest command. Main thread.
 */
import { parseArgs } from 'node:util';
import { COMMANDS, type Command, FLAGS, type Flag, OVERRIDES, PERMISSION_FLAGS, shortsOf, takes } from './flags.ts';
import { commandHelp, HELP } from './help.ts';
import { refusedWhy } from './rg_refused.ts';

export { COMMANDS, type Command, PERMISSION_FLAGS } from './flags.ts';
export { HELP } from './help.ts';

export class UsageError extends Error {}

/** The search index a command's runtime uses: the agent and MCP server build theirs, one-shot calls use one that exists. */
export function indexUseOf(args: ParsedArgs): 'build' | 'existing' | 'off' {
  if (args.values['no-index']) return 'off';
  return args.command === 'agent' || args.command === 'mcp' ? 'build' : 'existing';
}

type Values = {
  [K in Flag]?: (typeof FLAGS)[K] extends { multiple: true }
    ? (typeof FLAGS)[K]['type'] extends 'string'
      ? string[]
      : boolean[]
    : (typeof FLAGS)[K]['type'] extends 'string'
      ? string
      : boolean;
};

export interface ParsedArgs {
  command: Command | undefined;
  positionals: string[];
  values: Values;
  /** The help text to print on stdout (exit 0), when help was asked for. */
  help?: string;
}

export function parseCli(argv: readonly string[]): ParsedArgs {
  // Deno-style: a bare --allow-write grants the whole root, --allow-write=a,b only those paths.
  const args = argv.map((a) =>
    a.startsWith('--') && (PERMISSION_FLAGS as readonly string[]).includes(a.slice(2)) ? `${a}=*` : a,
  );
  const word = commandWord(args);
  const named = word !== undefined && (COMMANDS as readonly string[]).includes(word);
  const command: Command = named ? (word === 'run' ? 'agent' : (word as Command)) : 'agent';
  const parsed = parseFor(command, command === 'grep' ? rgSpellings(args) : args);
  const values = parsed.values as Values;
  const positionals = named ? parsed.positionals.slice(1) : parsed.positionals;
  if (named) {
    if (values.help) return { command, positionals, values, help: commandHelp(command) };
    if (word === 'run' && positionals.length === 0 && values.prompt === undefined && process.stdin.isTTY)
      throw new UsageError('run needs a task: mewcode run fix the failing test (or pipe it on stdin).');
    return withPrompt({ command, positionals, values });
  }
  const [first, ...rest] = positionals;
  if (first === 'help') {
    if (rest.length > 1) throw new UsageError(`help takes one command; unexpected "${rest[1]}".`);
    const about = rest[0];
    if (about === undefined) return { command: undefined, positionals: [], values, help: HELP };
    if (about === 'agent' || about === 'run')
      return { command: 'agent', positionals: [], values, help: commandHelp('agent') };
    if (!(COMMANDS as readonly string[]).includes(about)) throw unknownWord(about, rest.slice(1));
    return { command: about as Command, positionals: [], values, help: commandHelp(about as Command) };
  }
  if (values.help) return { command: undefined, positionals: [], values, help: HELP };
  if (first === undefined) {
    // No words: a task may come with -p or on stdin (mewcode.ts reads it); agent flags alone say so too.
    const agentFlags = (['prompt', 'provider', 'model', 'base-url', 'max-turns', 'output-format'] as const).some(
      (f) => values[f] !== undefined,
    );
    return withPrompt({ command: agentFlags ? 'agent' : undefined, positionals: [], values });
  }
  // A quoted task has spaces in it; a bare word that is not a command is a typo, never a task.
  if (!/\s/.test(first.trim())) throw unknownWord(first, rest);
  return withPrompt({ command: 'agent', positionals, values });
}

/** -p TASK is the task; it does not mix with words. */
function withPrompt(p: ParsedArgs): ParsedArgs {
  const task = p.values.prompt;
  if (task === undefined) return p;
  if (p.command !== 'agent' && p.command !== undefined)
    throw new UsageError(`-p gives the agent a task; it does not apply to "${p.command}".`);
  if (p.positionals.length)
    throw new UsageError(`-p takes the whole task; unexpected "${p.positionals[0]}". Quote it.`);
  if (!task.trim()) throw new UsageError('-p needs a task.');
  return { ...p, command: 'agent', positionals: [task] };
}

/**
 * ripgrep's spellings the table cannot hold: as in rg, `-e -foo` searches for "-foo" (the word after
 * -e is its value even with a dash); rg's `--files` is `--list-files`, since bench's `--files N` has
 * the name.
 */
function rgSpellings(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const next = args[i + 1];
    if (a === '--') return [...out, ...args.slice(i)];
    if ((a === '-e' || a === '--regexp') && next?.startsWith('-')) {
      out.push(`--regexp=${next}`);
      i++;
    } else out.push(a === '--files' ? '--list-files' : a);
  }
  return out;
}

/** The first word that is neither a flag nor a flag's value: the command, or whatever stands there. */
function commandWord(args: readonly string[]): string | undefined {
  const shorts = shortsOf('agent');
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') return args[i + 1];
    if (!a.startsWith('-') || a === '-') return a;
    if (a.includes('=')) continue;
    const name = a.startsWith('--') ? a.slice(2) : shorts[a.slice(1)];
    const spec = name === undefined ? undefined : (FLAGS as Record<string, { type: string }>)[name];
    if (spec?.type === 'string' && (a.startsWith('--') || a.length === 2)) i++;
  }
  return undefined;
}

function parseFor(command: Command, args: string[]) {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [name, spec] of Object.entries(FLAGS)) {
    options[name] = { type: spec.type, ...('multiple' in spec ? { multiple: true } : {}) };
  }
  for (const [letter, flag] of Object.entries(shortsOf(command))) (options[flag] as { short?: string }).short = letter;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true, tokens: true });
  } catch (e) {
    const unknown = unknownFlag(command, args, options);
    if (unknown) throw unknown;
    const message = (e as Error).message.replace(/\. To specify a positional argument.*$/s, '');
    throw new UsageError(`${message}. See ${helpHint(command)}.`);
  }
  lastWins(parsed.values, parsed.tokens ?? []);
  // Asked for help, the other flags need not fit: the help says which do.
  for (const key of parsed.values.help ? [] : (Object.keys(parsed.values) as Flag[])) {
    if (!takes(command, key)) {
      throw new UsageError(
        `The flag --${key} does not apply to ${command === 'agent' ? 'a task' : `"${command}"`}. See ${helpHint(command)}.`,
      );
    }
  }
  return parsed;
}

/** Of flags that undo each other (OVERRIDES), only the one given last is kept, as in rg. */
function lastWins(values: Record<string, unknown>, tokens: readonly { kind: string; name?: string }[]): void {
  for (const group of OVERRIDES) {
    const given = tokens.filter((t) => t.kind === 'option' && (group as readonly string[]).includes(t.name ?? ''));
    const last = given.at(-1)?.name;
    for (const flag of group) if (flag !== last) delete values[flag];
  }
}

/**
 * The first flag in `args` that no command takes, read from the parser's own tokens: for grep, one of
 * ripgrep's that MewCode refuses says why (rg_refused.ts); any other names the nearest flag the
 * command takes (`--hiden` → `--hidden`), as a mistyped command names the nearest command.
 */
function unknownFlag(command: Command, args: string[], options: Record<string, unknown>): UsageError | undefined {
  const { tokens } = parseArgs({
    args,
    options: options as never,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  for (const t of tokens) {
    if (t.kind !== 'option' || t.name in options) continue;
    const why = command === 'grep' ? refusedWhy(t.name) : undefined;
    if (why) return new UsageError(`ripgrep's ${t.rawName} is not supported: ${why}.`);
    const taken = (Object.keys(FLAGS) as Flag[]).filter((f) => takes(command, f));
    const near = t.rawName.startsWith('--') ? nearest(t.name, taken) : undefined;
    const guess = near ? ` Did you mean --${near}?` : '';
    return new UsageError(`Unknown flag ${t.rawName}.${guess} See ${helpHint(command)}.`);
  }
  return undefined;
}

const helpHint = (command: Command) => (command === 'agent' ? 'mewcode --help' : `mewcode ${command} --help`);

/** A word that is not a command: the nearest command, and how to give a task instead. */
function unknownWord(word: string, rest: readonly string[]): UsageError {
  const near = nearest(word, [...COMMANDS, 'help']);
  const guess = near ? ` Did you mean "${near}"?` : '';
  const task = [word, ...rest].join(' ');
  return new UsageError(
    `"${word}" is not a command.${guess} Commands: ${COMMANDS.join(', ')}, help. ` +
      `To give the agent a task, quote it or say run: mewcode run ${task.length > 40 ? `${task.slice(0, 40)}…` : task}`,
  );
}

/** The nearest candidate within a third of `word`'s length in edits (at most 2), if any. */
function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(2, Math.floor(word.length / 3)) + 1;
  for (const c of candidates) {
    const d = distance(word.toLowerCase(), c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

/** Optimal string alignment distance: edits, with a swap of neighbours as one (grpe → grep). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** A flag value that must be a positive integer (or, with `zero`, a non-negative one). */
export function positiveInt(flag: string, value: string | undefined, zero = false): number | undefined {
  if (value === undefined) return undefined;
  if (!(zero ? /^(0|[1-9][0-9]*)$/ : /^[1-9][0-9]*$/).test(value) || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`--${flag} must be a ${zero ? 'non-negative' : 'positive'} integer, not "${value}".`);
  }
  return Number(value);
}
