/** A runtime rooted in a test's directory, and the spill files its answers leave in the OS temp dir. */
import { realpathSync, rmSync } from 'node:fs';
import { after } from 'node:test';
import { spillDirFor } from '../../lib/core/spill_dir.ts';
import type { ToolResult } from '../../lib/core/tool.ts';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../lib/runtime/runtime.ts';

/** A runtime rooted at `root`, closed (its worker pool stopped) when the test or test file ends. */
export function runtimeAt(root: string, options: Omit<RuntimeOptions, 'root'> = {}): Runtime {
  // No user settings file from the machine running the tests.
  const made = createRuntime({ root, home: null, ...options });
  if (!made.ok) throw new Error(made.error);
  const rt = made.value;
  after(async () => {
    await rt.close();
    removeSpillDir(rt.root);
  });
  return rt;
}

/**
 * Deletes the spill directory of a test's root (its background jobs' output files and the spills of
 * its answers, in the OS temp dir), once whatever wrote there has ended.
 */
export function removeSpillDir(root: string): void {
  let real = root;
  try {
    real = realpathSync.native(root);
  } catch {
    // the root is gone already; its spill directory is named after the path it had
  }
  const dir = spillDirFor(real, { create: false });
  if (dir.ok) rmSync(dir.value, { recursive: true, force: true });
}

/** Deletes the spill files a result names (the output budget's and bash's), which live in the OS temp dir. */
export function removeSpills(r: ToolResult | undefined): void {
  for (const file of [r?.meta?.truncated?.spillPath, r?.meta?.spillPath])
    if (typeof file === 'string' && file !== '') rmSync(file, { force: true });
}
