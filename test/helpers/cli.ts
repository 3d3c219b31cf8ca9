/**
 * Programs as child processes, the CLI above all: the one runner every CLI test uses, so each test
 * says only what it runs and with what. Awaited by default (a fake model or skill host in the test's
 * own process must keep serving meanwhile); `runCliSync` for the tests with nothing to serve.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { currentBundle } from '../../bin/current_bundle.mjs';
import { REPO, TSX } from './repo.ts';

/** The environment without the machine's model keys, MewCode and OpenTelemetry settings and colour settings. */
export const CLEAN_ENV = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => !/^(ANTHROPIC|OPENAI|MEWCODE|OTEL)_/.test(k) && k !== 'NO_COLOR' && k !== 'FORCE_COLOR',
  ),
);

/**
 * node's arguments that run the CLI: `[process.execPath, ...MEWCODE, ...args]`. Run from source,
 * mewcode.ts hands over to the checkout's bundle whenever dist/ is current (test/run.ts rebuilds a
 * stale one), so the tests run that very bundle directly then: the same program, without tsx's
 * start-up (about 0.5 s a run, and the suite runs the CLI a few hundred times). From source when
 * dist/ is stale or MEWCODE_FROM_SOURCE=1.
 */
const bundle = currentBundle(REPO);
export const MEWCODE = bundle ? [fileURLToPath(bundle)] : ['--import', TSX, path.join(REPO, 'mewcode.ts')];

/** node's arguments that run a program of test/fixtures from source. */
export const fixture = (name: string, ...args: string[]) => [
  '--import',
  TSX,
  path.join(REPO, 'test/fixtures', name),
  ...args,
];

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

export interface CliOptions {
  cwd?: string;
  /** Added to CLEAN_ENV; a key set to undefined is left out. */
  env?: Record<string, string | undefined>;
  input?: string;
  keepStdin?: boolean;
}

const cliEnv = (o: CliOptions) => ({ ...CLEAN_ENV, ...o.env });

/** The CLI from source, started: for a test that signals it or writes to it while it runs. */
export const startCli = (args: readonly string[], o: CliOptions = {}) =>
  startProgram(process.execPath, [...MEWCODE, ...args], { ...o, env: cliEnv(o) });

/** The CLI from source, run to its exit. */
export const runCli = (args: readonly string[], o: CliOptions = {}): Promise<Ran> => startCli(args, o).exit;

/** The CLI from source, run to its exit while this process waits (nothing of the test's may need to answer it). */
export function runCliSync(args: readonly string[], o: Omit<CliOptions, 'keepStdin'> = {}): Ran {
  const r = spawnSync(process.execPath, [...MEWCODE, ...args], {
    cwd: o.cwd ?? REPO,
    env: cliEnv(o),
    encoding: 'utf8',
    input: o.input ?? '',
  });
  if (r.error) throw r.error;
  return { code: r.status, out: r.stdout, err: r.stderr };
}
