/**
 * Runs a module script in a child node process under setpriv (util-linux) without capabilities: as
 * root it is then bound by file modes as any user is, so tests of unreadable files and directories
 * hold on a machine where the tests run as root.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { TSX } from './repo.ts';

export function runWithoutCaps(script: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const argv = ['--import', TSX, '--input-type=module', '-e', script, ...args];
  return spawnSync('setpriv', ['--bounding-set=-all', '--inh-caps=-all', '--clear-groups', process.execPath, ...argv], {
    encoding: 'utf8',
    cwd,
  });
}
