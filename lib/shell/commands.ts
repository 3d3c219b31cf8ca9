/**
 * What a command line runs, as the permission checks see it: every simple command (shell_parse.ts),
 * plus the commands that programs in it run (code_runners.ts: a wrapper's command, `find -exec`'s,
 * the text of `eval` and `sh -c`, parsed in turn), and what none of that can see. One analysis
 * serves `--allow-run`/`--deny-run`, the `bash(…)` rules and the blacklist:
 * - an allow covers the line only when it covers every command in it, and the line has no opaque
 *   or unseen part, no assignment, no program that runs code;
 * - a deny or ask applies when it may match any command, and always to a line with an unseen part.
 */
import { type Runner, runnerOf } from './code_runners.ts';
import { parseLine, type SimpleCommand, type Word } from './parse.ts';
import { shellQuote } from './words.ts';

export type { Word } from './parse.ts';

export interface Command extends SimpleCommand {
  /** What a rule's `=` and `~` patterns are matched against: words (quoted where needed), then redirections. */
  subject: string;
  /** Set when the program runs code it is given (code_runners.ts): why. No allow of it covers it. */
  runs?: string;
  /** A command that another one in the line runs (a wrapper's, find -exec's, eval's). */
  inner: boolean;
}

export interface CommandLine {
  commands: Command[];
  /** Why no allow covers the line, though every command in it is seen (a substitution, …). */
  opaque: string[];
  /** Why a program may run that no rule sees (a parse error, `$CMD`, `git -c`, …): deny and ask lists apply. */
  unseen: string[];
}

/** Nesting of eval/sh -c/wrappers followed; deeper is unseen. Bounds the work on hostile input too. */
const MAX_DEPTH = 4;
const MAX_COMMANDS = 2000;
/** Longer lines are not parsed (32 KiB of short commands take about 1 s on a loaded machine): they are unseen. */
const MAX_ANALYSED = 32 * 1024;

const cache = new Map<string, CommandLine>();

/** The analysis of a command line (cached: the policy asks for the same line many times). */
export function analyseCommand(line: string): CommandLine {
  const hit = cache.get(line);
  if (hit) return hit;
  const out: CommandLine = { commands: [], opaque: [], unseen: [] };
  if (Buffer.byteLength(line) > MAX_ANALYSED)
    out.unseen.push(`it is over ${MAX_ANALYSED / 1024} KiB, too long to analyse`);
  else addLine(out, line, 0, false);
  if (cache.size >= 200) cache.delete(cache.keys().next().value as string);
  cache.set(line, out);
  return out;
}

const note = (list: string[], why: string) => {
  if (!list.includes(why)) list.push(why);
};

function addLine(out: CommandLine, line: string, depth: number, inner: boolean) {
  const parsed = parseLine(line);
  for (const o of parsed.opaque) note(out.opaque, o);
  for (const u of parsed.unseen) note(out.unseen, u);
  for (const c of parsed.commands) addCommand(out, c, depth, inner);
}

function addCommand(out: CommandLine, c: SimpleCommand, depth: number, inner: boolean) {
  if (out.commands.length >= MAX_COMMANDS) {
    note(out.unseen, `it has over ${MAX_COMMANDS} commands to check`);
    return;
  }
  const program = c.words[0];
  const cmd: Command = { ...c, subject: subjectOf(c), inner };
  out.commands.push(cmd);
  if (program && program.value === undefined)
    note(out.unseen, `a program name that is only known when it runs (${program.text})`);
  const r = runnerOf(c.words);
  if (!r) return;
  cmd.runs = r.why;
  const name = program?.value ?? '';
  if (r.hidden) note(out.unseen, `${name}: ${r.hidden}`);
  if (r.inner === undefined && !r.code) return;
  if (depth >= MAX_DEPTH) {
    note(out.unseen, `commands nested more than ${MAX_DEPTH} deep`);
    return;
  }
  followInner(out, c.words, r, depth);
}

/**
 * A wrapper's command starts after its options, which this does not parse: every suffix of its
 * words is checked as a command (`sudo -u root touch x` is checked as `-u root touch x`, `root touch
 * x`, `touch x` and `x`), so a deny of touch sees it whatever the options were.
 */
function followInner(out: CommandLine, words: Word[], r: Runner, depth: number) {
  if (r.inner !== undefined)
    for (let i = r.inner; i < words.length; i++)
      addCommand(out, { words: words.slice(i), assigns: [], redirects: [] }, depth + 1, true);
  for (const code of r.code ?? []) {
    if (code === undefined) note(out.unseen, `${words[0]?.value}: code that is only known when it runs`);
    else addLine(out, code, depth + 1, true);
  }
}

function subjectOf(c: SimpleCommand): string {
  const words = c.words.map((w) => (w.value === undefined ? w.text : shellQuote(w.value)));
  return [...c.assigns, ...words, ...c.redirects].join(' ');
}

/** A command's program name, or undefined (no program, or one known only when it runs). */
export function programOf(c: Command): string | undefined {
  return c.words[0]?.value;
}

/** Whether a command has a word known only when it runs. */
export function hasDynamicWord(c: Command): boolean {
  return c.words.some((w) => w.value === undefined);
}

/** Whether a rule or grant matches one command: `maybe` when it depends on a word known only at run time. */
export type Match = 'yes' | 'no' | 'maybe';

/** Why no allow can cover this line whatever it names, or undefined. */
export function uncoverable(line: CommandLine): string | undefined {
  if (line.unseen.length) return line.unseen.join('; ');
  if (line.opaque.length) return line.opaque.join('; ');
  for (const c of line.commands) {
    if (c.assigns.length) return `it assigns variables (${c.assigns.join(' ')}), which can change what runs`;
    if (c.runs) return `${programOf(c)}: ${c.runs}`;
  }
  return undefined;
}

/** An allow covers a line when the line is fully seen and it covers every command in it. */
export function allowCovers(line: CommandLine, match: (c: Command) => Match): boolean {
  return uncoverable(line) === undefined && line.commands.every((c) => match(c) === 'yes');
}

/** A deny or ask applies when the line has an unseen part or it may match any command. */
export function denyApplies(line: CommandLine, match: (c: Command) => Match): boolean {
  return line.unseen.length > 0 || line.commands.some((c) => match(c) !== 'no');
}
