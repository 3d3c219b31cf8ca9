/**
 * Runs a benchmark probe (a TypeScript file) as plain JavaScript under plain node, so a figure of the
 * built library is what an installed MewCode costs: tsx in the process would add ~35 MiB to the main
 * thread and its loader to every worker thread (workers inherit execArgv), which is not MewCode's
 * memory. The probe is bundled by esbuild with the bench modules it imports (type imports vanish;
 * packages and MewCode's own lib/ stay out) into a temporary directory, so it must find the library
 * through its arguments or environment, not through its own URL.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Plugin } from 'esbuild';

export async function spawnPlain(
  probe: string,
  args: readonly string[],
  o: { env?: NodeJS.ProcessEnv; nodeFlags?: readonly string[]; inherit?: boolean } = {},
): Promise<SpawnSyncReturns<string>> {
  const { build } = await import('esbuild');
  const dir = mkdtempSync(path.join(tmpdir(), 'mewcode-plain-probe-'));
  try {
    const plain = path.join(dir, `${path.basename(probe, '.ts')}.mjs`);
    const libDir = path.resolve(path.dirname(probe), '../lib');
    const leaveLibOut: Plugin = {
      name: 'leave-lib-out',
      setup(b) {
        b.onResolve({ filter: /\/lib\// }, (a) =>
          path.resolve(a.resolveDir, a.path).startsWith(libDir) ? { path: a.path, external: true } : undefined,
        );
      },
    };
    await build({
      entryPoints: [probe],
      outfile: plain,
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      plugins: [leaveLibOut],
      logLevel: 'error',
    });
    return spawnSync(process.execPath, [...(o.nodeFlags ?? []), plain, ...args], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
      env: o.env ?? process.env,
      stdio: o.inherit ? 'inherit' : 'pipe',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
