/**
 * The checkout's bundle (dist/), made current before the tests start: the CLI tests run it directly
 * when it is current (test/helpers/cli.ts), as mewcode.ts itself hands over to it, so a stale one is
 * rebuilt once here rather than leaving every CLI run to start through tsx.
 */
import { execFileSync } from 'node:child_process';
import { currentBundle } from '../../bin/current_bundle.mjs';
import { REPO } from '../helpers/repo.ts';

export function makeDistCurrent(): void {
  // MEWCODE_FROM_SOURCE=1 asks for the sources: no bundle is ever current then.
  if (process.env.MEWCODE_FROM_SOURCE === '1' || currentBundle(REPO)) return;
  console.error('dist/ is missing or older than the sources: building it once (npm run build)');
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: REPO, stdio: 'inherit' });
}
