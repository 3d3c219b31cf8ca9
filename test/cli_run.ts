/**
 * Programs as child processes, awaited (a fake model in this process must keep serving meanwhile):
 * the one runner every CLI test uses, so each test says only what it runs and with what.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';
import { REPO, TSX } from './helpers.ts';

/** The environment without the machine's model keys and colour settings. */
export const CLEAN_ENV = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => !/^(ANTHROPIC|OPENAI)_/.test(k) && k !== 'NO_COLOR' && k !== 'FORCE_COLOR',
  ),
);

/** node's arguments that run the CLI from source: `[process.execPath, ...MEWCODE, ...args]`. */
export const MEWCODE = ['--import', TSX, path.join(REPO, 'mewcode.ts')];

export interface Ran {
  code: number | null;
  out: string;
  err: string;
}

export interface RunOptions {
  cwd?: string;
  /** The child's whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** What stdin gets before it is closed (default: nothing). */
  input?: string;
  /** Leave stdin open for the caller to write to (a server speaking on stdio). */
  keepStdin?: boolean;
}

/** A started program: the child (to signal it) and its exit with code (null after a signal), stdout, stderr. */
export function startProgram(
  command: string,
  args: readonly string[],
  o: RunOptions = {},
): { child: ChildProcessWithoutNullStreams; exit: Promise<Ran> } {
  const child = spawn(command, args, {
    cwd: o.cwd ?? REPO,
    env: o.env ?? process.env,
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
  const exit = new Promise<Ran>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
  child.stdin.on('error', () => {}); // a child that exits without reading its input
  if (!o.keepStdin) child.stdin.end(o.input ?? '');
  return { child, exit };
}

/** Runs `command` to its exit. */
export const runProgram = (command: string, args: readonly string[], o: RunOptions = {}): Promise<Ran> =>
  startProgram(command, args, o).exit;

/** The CLI from source; `env` is added to CLEAN_ENV. */
export function runCli(
  args: string[],
  o: { cwd?: string; env?: Record<string, string | undefined>; input?: string } = {},
): Promise<Ran> {
  return runProgram(process.execPath, [...MEWCODE, ...args], { ...o, env: { ...CLEAN_ENV, ...o.env } });
}
