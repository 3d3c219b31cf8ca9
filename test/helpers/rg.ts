/**
 * A live ripgrep, the reference the parity tests compare MewCode's answers with: the one runner they
 * all use, so each says only which flags it passes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { requireTool } from './system_tools.ts';

/** The flags that make rg print as grep's content mode does: `path:line:text`, files in path order. */
export const RG_CONTENT = ['--no-heading', '--with-filename', '-n', '--sort', 'path'] as const;

export interface RgRun {
  status: number | null;
  /** stdout with the `./` that rg puts before each path dropped. */
  out: string;
  /** The lines of `out`, empty ones left out. */
  lines: string[];
  stderr: string;
}

export interface RgOptions {
  /** What to search, after `args` (default `.`: with no path, rg would search its stdin, a pipe here); [] when `args` name it. */
  paths?: string[];
  /** The test looks at rg's errors itself (exit 2); otherwise an error fails the test. */
  errors?: boolean;
  maxBuffer?: number;
}

/** rg in `cwd` with `args`, without the user's config. */
export function rg(cwd: string, args: readonly string[], o: RgOptions = {}): RgRun {
  const r = spawnSync(requireTool('rg'), ['--no-config', ...args, ...(o.paths ?? ['.'])], {
    cwd,
    encoding: 'utf8',
    maxBuffer: o.maxBuffer ?? 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  if (!o.errors) assert.ok(r.status === 0 || r.status === 1, `rg ${args.join(' ')}: ${r.stderr}`);
  const out = r.stdout.replace(/^\.\//gm, '');
  return { status: r.status, out, lines: out.split('\n').filter((l) => l !== ''), stderr: r.stderr };
}
