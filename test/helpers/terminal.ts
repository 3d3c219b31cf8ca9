/**
 * The CLI on a real pseudo-terminal (util-linux `script -qfec CMD /dev/null`): each time a question
 * is on the screen (it ends with "› "), the next answer is typed. A missing `script` fails the calling
 * test with how to get it; it never skips (a green run must have asked).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { CLEAN_ENV, MEWCODE } from './cli.ts';

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

export interface TerminalOptions {
  /** Added to CLEAN_ENV (a user's HOME, NO_COLOR…). */
  env?: Record<string, string>;
  cwd?: string;
  /** Typed one per question, "n" once they run out. */
  answers?: string[];
  /** The terminal's width (`stty cols`); left as `script` opens it when not given. */
  cols?: number;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs the CLI from source on a pseudo-terminal to its exit. */
export function onTerminal(args: string[], o: TerminalOptions = {}): Promise<Screen> {
  assertTerminal();
  const program = `exec ${[process.execPath, ...MEWCODE, ...args].map(quote).join(' ')}`;
  const command = o.cols === undefined ? program : `stty cols ${o.cols} rows 50; ${program}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: o.cwd,
      env: { ...CLEAN_ENV, SHELL: '/bin/sh', ...o.env },
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
        child.stdin.write(`${o.answers?.[questions.length - 1] ?? 'n'}\n`);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code, screen: screen.replace(/\r/g, ''), questions });
    });
  });
}

/** Columns a row of the screen takes (the tests draw only one-column characters). */
export const rowsWiderThan = (screen: string, cols: number) => screen.split('\n').filter((r) => [...r].length > cols);
