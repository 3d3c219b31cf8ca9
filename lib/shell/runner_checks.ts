/**
 * The checks of code_runners.ts for programs whose options or arguments decide whether they run
 * code: shells, interpreters, git, find, package runners, awk, sed, and the shared helpers.
 */
export interface Runner {
  /** Why an allow of the program does not cover it. */
  why: string;
  /** Set when the code it runs cannot be seen: why. */
  hidden?: string;
  /** Index of the word where a command it runs starts: each suffix from there is checked as a command. */
  inner?: number;
  /** Shell code it runs (eval's words joined, sh -c's string); undefined: not a fixed text. */
  code?: (string | undefined)[];
}

export type Args = (string | undefined)[];
export type Check = (a: Args) => Runner | undefined;

export const isOpt = (s: string | undefined) => s !== undefined && /^[-+]/.test(s);
export const first = (a: Args, from = 1) => {
  for (let i = from; i < a.length; i++) if (!isOpt(a[i])) return i;
  return -1;
};
/** A word equal to one of `long` (or `long=…`), or a short-option cluster holding one of `short`. */
export function hasOpt(a: Args, short: string, long: readonly string[]): boolean {
  return a.some(
    (s, i) =>
      i > 0 &&
      s !== undefined &&
      (long.some((l) => s === l || s.startsWith(`${l}=`)) ||
        (short !== '' && /^-[A-Za-z0-9]+$/.test(s) && [...s.slice(1)].some((c) => short.includes(c)))),
  );
}
export const wrapper =
  (what: string): Check =>
  (a) =>
    a.length > 1 ? { why: `${what} runs the command it is given`, inner: 1 } : undefined;

export const SHELLS = [
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'mksh',
  'ash',
  'yash',
  'posh',
  'rbash',
  'fish',
  'csh',
  'tcsh',
];
export const shell: Check = (a) => {
  const why = 'a shell runs whatever code it is given';
  const cIndex = a.findIndex((s, i) => i > 0 && s !== undefined && /^-[A-Za-z]*c[A-Za-z]*$/.test(s));
  if (cIndex > 0) {
    const i = first(a, cIndex + 1);
    return { why, code: i > 0 ? [a[i]] : [undefined] };
  }
  if (a.some((s) => s === undefined)) return { why, hidden: 'a shell with arguments that are not fixed words' };
  return first(a) < 0 || a.includes('-s') ? { why, hidden: 'a shell reading commands from its input' } : { why };
};

/** Inline-code options of interpreters: `python -c`, `node -e`, …; reading the program from stdin too. */
export function interpreter(short: string, long: readonly string[]): Check {
  return (a) => {
    if (hasOpt(a, short, long))
      return { why: 'it runs code given inline', hidden: 'code in another language given inline' };
    if (a.length === 1 || a.includes('-'))
      return { why: 'it runs a program read from its input', hidden: 'code in another language read from its input' };
    return undefined;
  };
}

export const git: Check = (a) => {
  const global = ['--config-env', '--exec-path', '--git-dir', '--work-tree', '-C', '-c'];
  const why = 'git runs commands named in its configuration and options';
  let i = 1;
  while (i < a.length && isOpt(a[i])) {
    const o = a[i] as string;
    if (global.some((g) => o === g || o.startsWith(`${g}=`) || (g.length === 2 && o.startsWith(g))))
      return { why, hidden: `git ${o.split('=')[0]} (configuration can run any command: alias.x=!cmd, core.pager, …)` };
    i += 1;
  }
  const sub = a[i];
  if (sub === undefined && i < a.length) return { why, hidden: 'a git subcommand that is not a fixed word' };
  const always = [
    'config',
    'filter-branch',
    'difftool',
    'mergetool',
    'send-email',
    'instaweb',
    'daemon',
    'web--browse',
  ];
  const options: Record<string, [string, string[]]> = {
    clone: ['uc', ['--upload-pack', '--template', '--config']],
    init: ['', ['--template']],
    fetch: ['', ['--upload-pack']],
    pull: ['', ['--upload-pack']],
    'ls-remote': ['u', ['--upload-pack']],
    archive: ['', ['--exec']],
    push: ['', ['--receive-pack', '--exec']],
    rebase: ['x', ['--exec']],
    grep: ['O', ['--open-files-in-pager']],
  };
  const rest = a.slice(i);
  const opt = sub === undefined ? undefined : options[sub];
  if (
    (sub !== undefined && always.includes(sub)) ||
    (sub === 'submodule' && rest.includes('foreach')) ||
    (sub === 'bisect' && rest.includes('run')) ||
    (opt && hasOpt(rest, opt[0], opt[1]))
  )
    return { why, hidden: `git ${sub} can run any command` };
  return undefined;
};

export const find: Check = (a) => {
  const i = a.findIndex((s) => s === '-exec' || s === '-execdir' || s === '-ok' || s === '-okdir');
  return i > 0 ? { why: `find ${a[i]} runs a command`, inner: i + 1 } : undefined;
};

export const packageRunner: Check = (a) => {
  const why = 'it runs a package or command it is given';
  if (hasOpt(a, '', ['--script-shell', '--shell', '--node-options', '--userconfig', '--globalconfig', '--call']))
    return { why, hidden: 'an option that names a command or configuration to run' };
  const sub = a[first(a)];
  if (sub === undefined && first(a) > 0) return { why, hidden: 'a subcommand that is not a fixed word' };
  if (['exec', 'x', 'dlx', 'create', 'init', 'explore', 'edit', 'config', 'set'].includes(sub ?? ''))
    return { why: `${a[0]} ${sub} runs a package, a command or an editor it is given`, inner: first(a) + 1 };
  return undefined;
};

export const awk: Check = (a) => {
  const why = 'an awk program can run commands';
  if (hasOpt(a, 'fiElb', ['--file', '--include', '--load', '--exec', '--source']))
    return { why, hidden: 'an awk program or extension from a file' };
  let i = 1;
  while (i < a.length && isOpt(a[i])) i += /^-[Fv]$/.test(a[i] as string) ? 2 : 1;
  const program = a[i];
  if (i >= a.length) return undefined;
  if (program === undefined || /system|\||@load|@include/.test(program))
    return { why, hidden: 'an awk program that runs commands (system, |, @load)' };
  return undefined;
};

export const sed: Check = (a) => {
  if (a.includes('--sandbox')) return undefined;
  const why = 'GNU sed runs commands with e';
  if (hasOpt(a, 'f', ['--file'])) return { why, hidden: 'a sed script from a file' };
  const scripts: Args = [];
  a.forEach((s, i) => {
    if (s === '-e' || s === '--expression') scripts.push(a[i + 1]);
    else if (s?.startsWith('--expression=')) scripts.push(s.slice(13));
  });
  if (scripts.length === 0) {
    const i = first(a);
    if (i > 0) scripts.push(a[i]);
  }
  const runs = (s: string | undefined) =>
    s === undefined ||
    /(^|[;\n{}!]|[0-9$/]\s*)\s*e(\s|;|}|$)/.test(s) ||
    /s(.)(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[A-Za-z0-9]*e/.test(s);
  return scripts.some(runs) ? { why, hidden: 'a sed script with the e command or flag' } : undefined;
};

/** Options that name a program to run, per program. */
export function programOption(short: string, long: readonly string[]): Check {
  return (a) =>
    hasOpt(a, short, long)
      ? { why: 'an option that names a program to run', hidden: 'a program named in an option' }
      : undefined;
}

/** Builtins that take variable names: a subscript in a name is arithmetic, and `$(…)` in it runs. */
export function names(when?: (a: Args) => boolean): Check {
  return (a) =>
    (!when || when(a)) && a.slice(1).some((s) => s === undefined || (s.includes('[') && /[$`]/.test(s)))
      ? { why: 'it takes variable names', hidden: 'a variable name that is not a fixed word or runs a substitution' }
      : undefined;
}
