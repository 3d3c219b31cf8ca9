/** The real CLI as a child process, awaited (a fake model in this process must keep serving meanwhile). */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO, TSX } from './helpers.ts';

/** The environment without the machine's model keys and colour settings. */
export const CLEAN_ENV = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => !/^(ANTHROPIC|OPENAI)_/.test(k) && k !== 'NO_COLOR' && k !== 'FORCE_COLOR',
  ),
);

export interface Ran {
  code: number | null;
  out: string;
  err: string;
}

export function runCli(
  args: string[],
  o: { cwd?: string; env?: Record<string, string | undefined>; input?: string } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, path.join(REPO, 'mewcode.ts'), ...args], {
      cwd: o.cwd ?? REPO,
      env: { ...CLEAN_ENV, ...o.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(o.input ?? '');
  });
}
