/**
 * A checkout's built library, for probes that compare builds: the single file `dist/mewcode.mjs`, or
 * `dist/lib.mjs` in a checkout from before the single file came back.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export function bundleLibraryUrl(checkout: string): string {
  const dist = path.join(path.resolve(checkout), 'dist');
  const older = path.join(dist, 'lib.mjs');
  return pathToFileURL(existsSync(older) ? older : path.join(dist, 'mewcode.mjs')).href;
}

/**
 * A probe given `--bundle` measures the built library under plain node: the first time through, it
 * runs itself again as plain JavaScript (plain_child.ts says why) and exits with that run's status.
 */
export async function rerunPlain(probeUrl: string, bundle: string | undefined, nodeFlags: string[]): Promise<void> {
  if (bundle === undefined || process.env.MEWCODE_PLAIN_PROBE === '1') return;
  const { spawnPlain } = await import('./plain_child.ts');
  const child = await spawnPlain(fileURLToPath(probeUrl), process.argv.slice(2), {
    env: { ...process.env, MEWCODE_PLAIN_PROBE: '1' },
    nodeFlags,
    inherit: true,
  });
  process.exit(child.status ?? 1);
}
