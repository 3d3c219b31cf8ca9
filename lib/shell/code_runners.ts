/**
 * Programs and options that run code given to them: an allow of the program (`--allow-run=git`,
 * `bash(git)`, `bash(~^find )`) never covers such an invocation, only an exact rule for it or a
 * blanket allow does. Where the code is a command we can read (a wrapper's command, `find -exec`'s,
 * `eval`'s or `sh -c`'s static text), deny and ask rules see it; where we cannot (`git -c`,
 * `python -c`, `awk` with `system`, a shell reading its input), it is hidden: deny and ask lists
 * apply to it as to a program they cannot see. README's "What a command rule covers" lists them.
 */

import type { Word } from './parse.ts';
import {
  awk,
  type Check,
  find,
  git,
  hasOpt,
  interpreter,
  isOpt,
  names,
  packageRunner,
  programOption,
  type Runner,
  SHELLS,
  sed,
  shell,
  wrapper,
} from './runner_checks.ts';

export type { Runner } from './runner_checks.ts';

const CHECKS: Record<string, Check> = {
  eval: (a) => ({
    why: 'eval runs its arguments as shell code',
    code: [a.slice(1).every((s) => s !== undefined) ? a.slice(1).join(' ') : undefined],
  }),
  source: (a) => ({
    why: 'source runs a file as shell code',
    ...(a[1] === undefined ? { hidden: 'a file name that is not a fixed word' } : {}),
  }),
  trap: (a) =>
    a.length > 2 && !isOpt(a[1]) ? { why: 'trap runs its handler as shell code', code: [a[1]] } : undefined,
  alias: (a) => (a.length > 1 ? { why: 'an alias is shell code', hidden: 'an alias definition' } : undefined),
  bind: programOption('x', []),
  complete: programOption('CF', []),
  compgen: programOption('CF', []),
  enable: programOption('f', []),
  mapfile: programOption('C', []),
  readarray: programOption('C', []),
  fc: () => ({ why: 'fc runs commands from the history', hidden: 'fc' }),
  command: (a) =>
    a.length > 1 && !hasOpt(a, 'vV', []) ? { why: 'command runs the command it is given', inner: 1 } : undefined,
  builtin: wrapper('builtin'),
  exec: wrapper('exec'),
  su: (a) =>
    hasOpt(a, 'c', ['--command'])
      ? { why: 'su -c runs shell code', hidden: 'su -c' }
      : { why: 'su starts a shell', hidden: 'su' },
  // watch and ssh join their words into one string that a shell runs: each word is read as code too.
  watch: (a) => ({ why: 'watch runs its arguments through sh -c', inner: 1, code: a.slice(1) }),
  ssh: (a) =>
    hasOpt(a, 'oF', [])
      ? { why: 'ssh runs commands', hidden: 'ssh -o/-F can name a local command' }
      : { why: 'ssh runs the command it is given', inner: 1, code: a.slice(1) },
  hash: programOption('p', []),
  scp: programOption('SoF', []),
  sftp: programOption('SoF', []),
  rsync: programOption('e', ['--rsh', '--rsync-path']),
  tar: programOption('IF', [
    '--to-command',
    '--use-compress-program',
    '--checkpoint-action',
    '--info-script',
    '--new-volume-script',
    '--rsh-command',
  ]),
  zip: programOption('', ['-TT', '--unzip-command']),
  man: programOption('PH', ['--pager', '--html']),
  git,
  find,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  sed,
  npm: packageRunner,
  pnpm: packageRunner,
  yarn: packageRunner,
  bun: (a) => interpreter('ep', ['--eval', '--print'])(a) ?? packageRunner(a),
  deno: (a) =>
    a[1] === 'eval'
      ? { why: 'it runs code given inline', hidden: 'code given inline' }
      : interpreter('', ['--eval'])(a),
  node: interpreter('ep', ['--eval', '--print']),
  nodejs: interpreter('ep', ['--eval', '--print']),
  perl: interpreter('eE', []),
  ruby: interpreter('e', []),
  php: interpreter('r', ['--run']),
  lua: interpreter('e', []),
  luajit: interpreter('e', []),
  Rscript: interpreter('e', []),
  osascript: interpreter('e', []),
  pwsh: interpreter('c', ['-Command', '-EncodedCommand']),
  unset: names(),
  read: names(),
  printf: names((a) => a.includes('-v')),
  test: names((a) => a.includes('-v') || a.includes('-R')),
  '[': names((a) => a.includes('-v') || a.includes('-R')),
};
CHECKS['.'] = CHECKS.source as Check;
for (const s of SHELLS) CHECKS[s] = shell;
for (const p of ['python', 'python2', 'python3', 'pypy', 'pypy3']) CHECKS[p] = interpreter('c', []);
for (const w of ['npx', 'pnpx', 'bunx']) CHECKS[w] = () => ({ why: `${w} runs a package it is given`, inner: 1 });
for (const e of ['vi', 'vim', 'nvim', 'ex', 'view', 'emacs', 'gdb', 'expect', 'at', 'batch', 'crontab'])
  CHECKS[e] = () => ({ why: `${e} runs commands`, hidden: `${e} runs commands it reads` });
for (const w of [
  'env',
  'sudo',
  'doas',
  'nohup',
  'nice',
  'timeout',
  'stdbuf',
  'setsid',
  'chroot',
  'ionice',
  'taskset',
  'chrt',
  'unshare',
  'nsenter',
  'runuser',
  'setpriv',
  'xargs',
  'parallel',
  'time',
  'strace',
  'ltrace',
  'valgrind',
  'perf',
  'flock',
  'script',
  'busybox',
  'fakeroot',
  'proot',
  'firejail',
  'bwrap',
  'systemd-run',
  'xvfb-run',
  'dbus-run-session',
  'ssh-agent',
  'sshpass',
  'caffeinate',
  'catchsegv',
])
  CHECKS[w] = wrapper(w);
// env -S splits one string into a command; flock -c and script -c run shell code.
const plain = { env: CHECKS.env, flock: CHECKS.flock, script: CHECKS.script } as Record<string, Check>;
CHECKS.env = (a) =>
  hasOpt(a, 'S', ['--split-string'])
    ? { why: 'env -S runs a command', hidden: 'env -S splits a string into a command' }
    : plain.env?.(a);
CHECKS.flock = (a) =>
  hasOpt(a, 'c', ['--command']) ? { why: 'flock -c runs shell code', hidden: 'flock -c' } : plain.flock?.(a);
CHECKS.script = (a) =>
  hasOpt(a, 'c', ['--command']) ? { why: 'script -c runs shell code', hidden: 'script -c' } : plain.script?.(a);

/** What running these words runs besides the program itself, or undefined for an ordinary program. */
export function runnerOf(words: Word[]): Runner | undefined {
  const program = words[0]?.value;
  if (program === undefined) return undefined;
  const name = program.slice(program.lastIndexOf('/') + 1);
  const check = Object.hasOwn(CHECKS, name) ? CHECKS[name] : /^python[0-9.]+$/.test(name) ? CHECKS.python : undefined;
  return check?.(words.map((w) => w.value));
}

/** The programs this module treats as running code, for the README's table (see test/policy/run_rules.test.ts). */
export const RUNNER_PROGRAMS: readonly string[] = Object.keys(CHECKS);
