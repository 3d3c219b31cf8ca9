/** Shared test fixtures: real temp directories and a runtime rooted in one. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { createRuntime, type Runtime, type RuntimeOptions } from '../lib/runtime.ts';

/** A fresh real directory, removed when the test file ends. */
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

export function runtimeAt(root: string, options: Omit<RuntimeOptions, 'root'> = {}): Runtime {
  // No user settings file from the machine running the tests.
  const made = createRuntime({ root, home: null, ...options });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}

/** The repository's own directory. */
export const REPO = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..');

/** `--import` value that loads tsx from this repository, whatever the child's cwd. */
export const TSX = import.meta.resolve('tsx');
