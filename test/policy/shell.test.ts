import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { analyseCommand, uncoverable } from '../../lib/shell/commands.ts';
import { parseLine } from '../../lib/shell/parse.ts';
import { ansiC } from '../../lib/shell/words.ts';
import { tempDir } from '../helpers/temp.ts';
import { SHELL_CASES } from './shell_cases.ts';

const programsOf = (line: string) => {
  const p = parseLine(line);
  const programs = p.commands.map((c) => c.words[0]?.value).filter((v): v is string => v !== undefined);
  const dynamic = p.commands.some((c) => c.words.length > 0 && c.words[0]?.value === undefined);
  return { programs: programs.sort(), flagged: p.opaque.length > 0 || p.unseen.length > 0 || dynamic };
};

for (const [line, programs, flagged] of SHELL_CASES) {
  test(`shell: ${JSON.stringify(line)} runs ${programs.join(', ') || 'no fixed program'}${flagged ? ', not fully seen' : ''}`, () => {
    assert.deepEqual(programsOf(line), { programs: [...programs].sort(), flagged });
  });
}

/**
 * The same lines run by bash itself, with no PATH and the common builtins disabled, so that every
 * command it reaches lands in command_not_found_handle, which logs its name. For a line the
 * analysis sees whole, whatever bash ran must be a program it lists (each line runs twice: every
 * command succeeding, then failing, to take both sides of && and ||). A flagged line promises
 * nothing, which is why no allow covers it: `$CMD x` runs x, `x='a[$(touch P)]'; echo $((x))` touch.
 */
test('shell: every program bash actually runs for a line seen whole is one the analysis lists', () => {
  const dir = tempDir('mewcode-shell-oracle-');
  const missed: string[] = [];
  let seen = 0;
  SHELL_CASES.forEach(([line, programs, flagged], n) => {
    const ran = new Set<string>();
    for (const status of [0, 1]) {
      // A log per run: a background job may still write after bash has exited.
      const log = path.join(dir, `ran-${n}-${status}.log`);
      const prelude = [
        'enable -n echo true false test [ read pwd wait cd let exit trap eval exec command',
        // The handler runs in a subshell: a loop that never ends is cut by the log's length.
        `command_not_found_handle() { builtin printf '%s\\n' "$1" >> ${JSON.stringify(log)}; mapfile -t seen < ${JSON.stringify(log)}; ((\${#seen[@]} > 40)) && builtin kill -9 $$; return ${status}; }`,
      ].join('\n');
      spawnSync('/bin/bash', ['-c', `${prelude}\n${line}`], {
        cwd: dir,
        env: { PATH: '/nonexistent', HOME: dir },
        stdio: 'ignore',
        timeout: 20_000,
      });
      if (existsSync(log)) for (const name of readFileSync(log, 'utf8').split('\n').filter(Boolean)) ran.add(name);
    }
    seen += ran.size;
    if (!flagged)
      for (const name of ran) if (!programs.includes(name)) missed.push(`${JSON.stringify(line)} ran ${name}`);
  });
  assert.deepEqual(missed, []);
  assert.ok(seen > SHELL_CASES.length, `the handler logged only ${seen} programs: the oracle is not working`);
});

test("shell: $'…' decodes as bash does, and a NUL ends the string", () => {
  assert.equal(ansiC("\\x74ouch \\'a\\' \\n\\t\\101\\u00e9\\cA\\q"), "touch 'a' \n\tAé\x01\\q");
  assert.equal(ansiC('ab\\0cd'), 'ab');
  const out = spawnSync('/bin/bash', ['-c', "printf %s $'\\x74ouch \\'a\\' \\n\\t\\101\\u00e9\\cA\\q'"], {
    env: { LC_ALL: 'C.UTF-8' },
  });
  assert.equal(out.stdout.toString(), "touch 'a' \n\tAé\x01\\q");
});

test('shell: programs that run code are seen through where they can be, and unseen where not', () => {
  const inner = (line: string) =>
    analyseCommand(line)
      .commands.filter((c) => c.inner)
      .map((c) => c.subject);
  assert.deepEqual(inner('sudo -u root touch x'), ['-u root touch x', 'root touch x', 'touch x', 'x']);
  assert.deepEqual(inner('bash -c "echo hi; touch X"'), ['echo hi', 'touch X']);
  assert.deepEqual(inner("eval 'touch X'"), ['touch X']);
  assert.deepEqual(inner('find . -exec rm {} +'), ["rm '{}' +", "'{}' +", '+']);
  for (const line of [
    'git -c alias.x="!touch P" x',
    'git -C ../other status',
    'git --exec-path=/tmp status',
    'git --config-env=core.pager=X log',
    'git config core.pager "touch P"',
    'git rebase -x "touch P" HEAD~1',
    'python3 -c "import os"',
    'node -e "1"',
    'awk \'BEGIN { system("touch P") }\'',
    "sed 's/a/b/e' f",
    'echo touch P | sh',
    'eval "$X"',
    'bash -c "$X"',
    'env -S "touch P"',
    'tar --to-command="touch P" -xf a.tar',
    'ssh -o ProxyCommand="touch P" host',
    'unset "a[\\$(touch P)]"',
    'hash -p /tmp/evil git',
  ])
    assert.ok(analyseCommand(line).unseen.length > 0, line);
  for (const line of [
    'git status',
    'git push -u origin main',
    'awk "{print \\$1}" f',
    'sed -n 1,5p f',
    'command -v git',
  ])
    assert.equal(uncoverable(analyseCommand(line)), undefined, line);
});

test('shell: a line too long to analyse is unseen, not parsed', () => {
  const line = `echo ${'a'.repeat(40 * 1024)}`;
  assert.match(analyseCommand(line).unseen.join(), /too long to analyse/);
});
