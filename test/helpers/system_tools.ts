/**
 * The system tools the tests compare against or run under (installed by `.ci/run`). A missing one is
 * a failure naming the Debian package, never a skip: a skipped security or parity test would let a
 * green run hide that it never ran.
 */
import { spawnSync } from 'node:child_process';

export const SYSTEM_TOOLS = {
  rg: { commands: ['rg'], apt: 'ripgrep' },
  fd: { commands: ['fdfind', 'fd'], apt: 'fd-find' },
  bwrap: { commands: ['bwrap'], apt: 'bubblewrap' },
  git: { commands: ['git'], apt: 'git' },
  curl: { commands: ['curl'], apt: 'curl' },
  openssl: { commands: ['openssl'], apt: 'openssl' },
} as const;

/** The command to run for a system tool; throws, naming the package to install, when it is missing. */
export function requireTool(tool: keyof typeof SYSTEM_TOOLS): string {
  const { commands, apt } = SYSTEM_TOOLS[tool];
  for (const c of commands) if (spawnSync('sh', ['-c', `command -v ${c}`]).status === 0) return c;
  throw new Error(
    `${commands.join(' or ')} is not installed; these tests need it: apt-get install ${apt} (.ci/run installs it)`,
  );
}
