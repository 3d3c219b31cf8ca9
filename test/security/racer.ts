/**
 * A real racing process for the race tests: test/fixtures/dir_swapper.ts swapping a directory for a
 * symlink and back in a loop. `whileRacing` starts it, waits until it is swapping, runs the body and
 * always kills it, waits for it to exit and puts the directory back, whatever the body does.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { lstatSync, renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type { ToolResult } from '../../lib/core/tool.ts';
import { REPO, TSX } from '../helpers/repo.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

/** Something a test must never see in any output: the marker every file outside the root carries. */
export const SECRET = 'SECRET-7f3a9c';
/** A grep shard's options for `needle`, every line of every file: the race tests' search. */
export const NEEDLE_GREP = {
  kind: 'grep' as const,
  pattern: 'needle',
  ignoreCase: false,
  fixedStrings: true,
  multiline: false,
  before: 0,
  after: 0,
  mode: 'content' as const,
  maxResults: Number.POSITIVE_INFINITY,
};
/** Calls per race test. */
export const TRIES = 1000;
export const leaked = (r: ToolResult) => `${r.content}\n${JSON.stringify(r.meta ?? {})}`.includes(SECRET);
export const outcome = (r: ToolResult) => (r.isError ? (r.code ?? 'error') : 'ok');

/**
 * A root whose `d` holds innocent files, and an outside directory with the same names holding
 * secrets; `deeper` adds a third level on both sides.
 */
export function scene({ deeper = false } = {}) {
  const root = tempDir();
  const outside = tempDir();
  writeTree(root, {
    'top.txt': 'needle at the top\n',
    'd/a.txt': 'needle inside\n',
    'd/sub/b.txt': 'needle deeper\n',
    ...(deeper ? { 'd/sub/deeper/c.txt': 'needle deepest\n' } : {}),
    'd/.gitignore': 'ignored.txt\n',
  });
  writeTree(outside, {
    'a.txt': `needle ${SECRET}\n`,
    [`${SECRET}.txt`]: 'needle\n',
    'sub/b.txt': `needle ${SECRET}\n`,
    [`sub/${SECRET}-deep.txt`]: 'needle\n',
    ...(deeper ? { [`sub/deeper/${SECRET}-deepest.txt`]: 'needle\n' } : {}),
    '.gitignore': `${SECRET}\n`,
  });
  return { root, outside, d: path.join(root, 'd') };
}

const exited = (c: ChildProcess) =>
  new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

export async function whileRacing<T>(dir: string, outside: string, body: () => Promise<T>): Promise<T> {
  const racer = spawn(
    process.execPath,
    ['--import', TSX, path.join(REPO, 'test/fixtures/dir_swapper.ts'), dir, outside],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      racer.stdout?.once('data', () => resolve());
      racer.once('exit', (code) => reject(new Error(`the racer exited early (${code})`)));
    });
    return await body();
  } finally {
    racer.kill('SIGKILL');
    await exited(racer);
    putBack(dir);
  }
}

/**
 * The real directory back under its name: the racer was killed at any point of a swap, maybe with
 * the directory aside (`dir.swap`) and `dir` a symlink or missing, which a test's next step would trip
 * on. A directory a tool made under the name meanwhile (a write test's) is left as it is.
 */
function putBack(dir: string): void {
  const aside = `${dir}.swap`;
  if (!lstatSync(aside, { throwIfNoEntry: false })) return;
  const there = lstatSync(dir, { throwIfNoEntry: false });
  if (there && !there.isSymbolicLink()) return;
  if (there) unlinkSync(dir);
  renameSync(aside, dir);
}

/** Tallies outcomes by name, for the log line each race test prints. */
export function tally() {
  const counts = new Map<string, number>();
  return {
    add(key: string) {
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
    toString: () => JSON.stringify(Object.fromEntries([...counts].sort())),
  };
}
