/**
 * How a command pattern of a rule (`bash(git status)`, `bash(=git status)`, `bash(~^git (diff|log))`,
 * each negatable with `!`) and a program list (`--allow-run=git,npm`, `--deny-run=curl`) are
 * matched against a command line, through its analysis (shell.ts): an allow must match every
 * command, a deny or ask any one (README, "What a command rule covers").
 */
import path from 'node:path';
import {
  allowCovers,
  analyseCommand,
  type Command,
  type CommandLine,
  denyApplies,
  hasDynamicWord,
  type Match,
  programOf,
  uncoverable,
} from '../shell/commands.ts';

const base = (p: string) => path.basename(p);

/**
 * Compares words from the start: `yes` when `want` are the first words (all of them, `whole`),
 * `no` at the first fixed word that differs, `maybe` at a word known only when it runs (it may be
 * any number of words). The program may be named by a path when `loose` (deny and ask lists).
 */
function compareWords(c: Command, want: readonly string[], whole: boolean, loose: boolean): Match {
  for (let i = 0; i < want.length; i++) {
    const w = c.words[i];
    if (!w) return 'no';
    if (w.value === undefined) return 'maybe';
    const same = w.value === want[i] || (i === 0 && loose && !want[0]?.includes('/') && base(w.value) === want[0]);
    if (!same) return 'no';
  }
  if (!whole || c.words.length === want.length) return 'yes';
  return c.words[want.length]?.value === undefined ? 'maybe' : 'no';
}

const negated = (m: Match): Match => (m === 'yes' ? 'no' : m === 'no' ? 'yes' : 'maybe');

/** Shell operators in a prefix pattern: it would name several commands, and no one command matches it. */
export const SEVERAL = /[;&|\n`]|\$\(|[<>]\(/;

/**
 * The run test of a rule pattern (without its leading `!`). `=x` equal to the whole line covers
 * that line as written (what an "always" answer records); otherwise every command is matched on
 * its own: `=x` and `~re` against its subject, a prefix against its words. `anyTool`: the rule is
 * for `*`, every tool.
 */
export function runRuleTest(
  pattern: string,
  negate: boolean,
  list: 'allow' | 'ask' | 'deny',
  re: RegExp | undefined,
  anyTool: boolean,
): (line: string) => boolean {
  const loose = list !== 'allow';
  let match: (c: Command) => Match;
  let whole: string | undefined;
  if (pattern.startsWith('=')) {
    whole = pattern.slice(1);
    // Parsed on first use: the parser loads only when a command is checked, never at start.
    let exact: ReturnType<typeof exactSubject> | null = null;
    match = (c) => {
      if (exact === null) exact = exactSubject(whole as string);
      if (exact === undefined) return 'no';
      if (c.subject === exact.subject) return 'yes';
      return exact.words && hasDynamicWord(c) ? compareWords(c, exact.words, true, loose) : 'no';
    };
  } else if (re) {
    // An allow's pattern is anchored at the start of each command; a deny or ask is searched in it.
    const anchored = list === 'allow' ? new RegExp(`^(?:${re.source})`, re.flags) : re;
    match = (c) => {
      if (anchored.test(c.subject)) return list === 'allow' && hasDynamicWord(c) ? 'maybe' : 'yes';
      return hasDynamicWord(c) ? 'maybe' : 'no';
    };
  } else {
    const want = pattern.trim().split(/\s+/);
    match = (c) => compareWords(c, want, false, loose);
  }
  const test = negate ? (c: Command) => negated(match(c)) : match;
  return (text) => {
    const trimmed = text.trim();
    if (whole !== undefined && trimmed === whole.trim()) return !negate;
    const line = analyseCommand(text);
    if (list === 'allow') return allowCovers(line, test);
    // A `*(…)` rule's pattern is mostly a path: it denies or asks only a command it surely matches.
    return anyTool ? line.commands.some((c) => test(c) === 'yes') : denyApplies(line, test);
  };
}

/** An exact pattern as one command's subject and words, when it is one fully seen command. */
function exactSubject(text: string): { subject: string; words?: string[] } | undefined {
  const line = analyseCommand(text);
  const only = line.commands[0];
  if (line.commands.length !== 1 || !only || line.unseen.length || line.opaque.length) return undefined;
  const words = only.words.map((w) => w.value);
  return words.every((w) => w !== undefined) ? { subject: only.subject, words } : { subject: only.subject };
}

/** `--allow-run=git,npm`: every command runs one of them by that bare name; nothing unseen. */
export function programsCover(programs: readonly string[], line: CommandLine): boolean {
  return allowCovers(line, (c) => (programs.includes(programOf(c) ?? '\0') ? 'yes' : 'no'));
}

/** `--deny-run=curl`: some command runs one of them, by name or by path, or the line has an unseen part. */
export function programsDeny(programs: readonly string[], line: CommandLine): boolean {
  return denyApplies(line, (c) => {
    const p = programOf(c);
    return p !== undefined && programs.some((g) => p === g || base(p) === base(g)) ? 'yes' : 'no';
  });
}

/** The programs a `--allow-run=` list needs to cover a line, or undefined when no list can. */
export function programsOfLine(text: string): string[] | undefined {
  const line = analyseCommand(text);
  if (uncoverable(line) !== undefined) return undefined;
  return [...new Set(line.commands.map((c) => programOf(c)).filter((p) => p !== undefined))];
}
