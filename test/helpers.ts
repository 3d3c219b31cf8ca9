/**
 * Shared test fixtures: real temp directories, a runtime rooted in one, and the waiting and tidying
 * that keep tests independent of how fast or busy the machine is.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ToolResult } from '../lib/core/tool.ts';
import { createRuntime, type Runtime, type RuntimeOptions } from '../lib/runtime/runtime.ts';

/** A fresh real directory, removed when the test (or, at top level, the test file) ends. */
export function tempDir(prefix = 'mewcode-test-'): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes files (path → content) under `dir`, creating parents. */
export function writeTree(dir: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(dir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

/** A runtime rooted at `root`, closed (its worker pool stopped) when the test or test file ends. */
export function runtimeAt(root: string, options: Omit<RuntimeOptions, 'root'> = {}): Runtime {
  // No user settings file from the machine running the tests.
  const made = createRuntime({ root, home: null, ...options });
  if (!made.ok) throw new Error(made.error);
  const rt = made.value;
  after(() => rt.close());
  return rt;
}

/** The repository's own directory. */
export const REPO = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..');

/** `--import` value that loads tsx from this repository, whatever the child's cwd. */
export const TSX = import.meta.resolve('tsx');

/**
 * Waits until `ready()` holds, looking again every `everyMs`. Tests wait for what they need (a
 * process gone, a file there) instead of sleeping a guessed time; `limitMs` is only a safety net so a
 * broken build fails instead of hanging, never something a passing run comes near.
 */
export async function waitFor(
  ready: () => boolean | Promise<boolean>,
  what: string,
  { limitMs = 60_000, everyMs = 25 } = {},
): Promise<void> {
  const start = Date.now();
  while (!(await ready())) {
    if (Date.now() - start > limitMs) throw new Error(`gave up after ${limitMs / 1000} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * Live (not zombie) processes with `marker` as one word of their command line, as `pid args` lines.
 * Markers carry the test process's pid (`sleep 3601.<pid>`: an hour, and a duration no other test
 * process uses), and whole words keep `3601.<pid>` from matching `3601.<pid>7` of another test file.
 */
export function processesWith(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([pid, stat, ...args]) => pid && stat && !stat.startsWith('Z') && args.includes(marker))
    .map(([pid, , ...args]) => `${pid} ${args.join(' ')}`);
}

/**
 * Waits until no process carries `marker` (a killed process takes a moment to vanish from the
 * table); fails listing the survivors. The sleepers tests start last an hour, far past the limit, so
 * a survivor cannot pass by ending on its own.
 */
export async function noSurvivors(marker: string, limitMs = 30_000): Promise<void> {
  let alive: string[] = [];
  try {
    const gone = () => {
      alive = processesWith(marker);
      return alive.length === 0;
    };
    await waitFor(gone, `no process with ${marker}`, { limitMs });
  } catch {
    throw new Error(`processes survived: ${alive.join('; ')}`);
  }
}

/**
 * Registers the removal of every process carrying `marker` (a word only this test uses, with the
 * test's pid in it) for when the test ends, so a failing run leaves no sleeper behind.
 */
export function killAfter(marker: string): void {
  after(() => {
    for (const line of processesWith(marker)) {
      try {
        process.kill(Number(line.split(' ')[0]), 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  });
}

/** Deletes the spill files a result names (the output budget's and bash's), which live in the OS temp dir. */
export function removeSpills(r: ToolResult | undefined): void {
  for (const file of [r?.meta?.truncated?.spillPath, r?.meta?.spillPath])
    if (typeof file === 'string' && file !== '') rmSync(file, { force: true });
}

/**
 * The system tools the tests compare against or run under (installed by `.ci/run`). A missing one is
 * a failure naming the Debian package, never a skip: a skipped security or parity test would let a
 * green run hide that it never ran.
 */
export const SYSTEM_TOOLS = {
  rg: { commands: ['rg'], apt: 'ripgrep' },
  fd: { commands: ['fdfind', 'fd'], apt: 'fd-find' },
  bwrap: { commands: ['bwrap'], apt: 'bubblewrap' },
  git: { commands: ['git'], apt: 'git' },
} as const;

/** The command to run for a system tool; throws, naming the package to install, when it is missing. */
export function requireTool(tool: keyof typeof SYSTEM_TOOLS): string {
  const { commands, apt } = SYSTEM_TOOLS[tool];
  for (const c of commands) if (spawnSync('sh', ['-c', `command -v ${c}`]).status === 0) return c;
  throw new Error(
    `${commands.join(' or ')} is not installed; these tests need it: apt-get install ${apt} (.ci/run installs it)`,
  );
}
