/**
 * The CLI on a real pseudo-terminal (util-linux `script -qfec CMD /dev/null`) `cols` columns wide:
 * each time a permission question is on the screen (it ends with "› "), the next answer is typed.
 * A missing `script` fails the calling test with how to get it; it never skips.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO, TSX } from '../helpers.ts';

const MEWCODE = ['--import', TSX, path.join(REPO, 'mewcode.ts')];

export function assertTerminal(): void {
  const probe = spawnSync('script', ['-qec', 'true', '/dev/null'], { stdio: 'ignore' });
  assert.equal(
    probe.status,
    0,
    'util-linux script (Debian package bsdutils) must be able to open a pseudo-terminal for this test',
  );
}

export interface Screen {
  code: number | null;
  /** Everything the terminal showed, CR removed. */
  screen: string;
  /** What was on the screen when each question was answered. */
  questions: string[];
}

/**
 * Runs the CLI on a pseudo-terminal with `home` as HOME; answers are typed one per question, "n"
 * when they run out.
 */
export function onTerminal(args: string[], home: string, answers: string[], cols = 60): Promise<Screen> {
  assertTerminal();
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = `stty cols ${cols} rows 50; exec ${[process.execPath, ...MEWCODE, ...args].map(q).join(' ')}`;
  return new Promise((resolve) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(ANTHROPIC|OPENAI)_/.test(k)));
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...env, HOME: home, SHELL: '/bin/sh' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    const questions: string[] = [];
    child.stdout.setEncoding('utf8'); // a character split between two reads stays whole
    child.stdout.on('data', (c: string) => {
      screen += c;
      const shown = screen.replace(/\r/g, '');
      const asked = shown.split('› ').length - 1;
      while (questions.length < asked) {
        questions.push(shown);
        child.stdin.write(`${answers[questions.length - 1] ?? 'n'}\n`);
      }
    });
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code, screen: screen.replace(/\r/g, ''), questions });
    });
  });
}

/** Columns a row of the screen takes (the tests draw only one-column characters). */
export const rowsWiderThan = (screen: string, cols: number) => screen.split('\n').filter((r) => [...r].length > cols);
