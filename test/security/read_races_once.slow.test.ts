/**
 * The read races of read_races.slow.test.ts for a process that searches once (`searchOnce`, as the CLI's
 * grep and glob do): no listing is kept, and a names-only walk (glob) lists every directory through
 * its parent's descriptor instead of checking its path. A real process keeps swapping a directory of
 * the root for a symlink to a directory outside it; no name or line from outside may come back.
 * Its own file: `searchOnce` holds for the rest of the process.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { searchOnce } from '../../lib/search/dircache.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { leaked, outcome, scene, TRIES, tally, whileRacing } from './racer.ts';

test('read races, searching once: glob and grep never return a name or a line from outside the root', async () => {
  searchOnce();
  const { root, outside, d } = scene({ deeper: true });
  const rt = runtimeAt(root, { workers: 0 });
  const calls: [string, Record<string, unknown>][] = [
    ['glob', { pattern: '**/*', limit: 0 }],
    ['glob', { pattern: '**', path: 'd', include_ignored: true }],
    ['glob', { pattern: 'sub/**', path: 'd' }],
    ['glob', { pattern: '**', sort: 'mtime' }],
    ['grep', { pattern: 'needle', head_limit: 0 }],
    ['grep', { pattern: 'needle', output_mode: 'files_with_matches', head_limit: 0 }],
  ];
  const seen = tally();
  let leaks = 0;
  try {
    await whileRacing(d, outside, async () => {
      for (let i = 0; i < TRIES; i++) {
        const [tool, input] = calls[i % calls.length] as [string, Record<string, unknown>];
        const r = await rt.call(tool, input);
        if (leaked(r)) leaks++;
        seen.add(`${tool} ${outcome(r)}`);
      }
    });
  } finally {
    await rt.close();
  }
  console.log(`read races, searching once: glob and grep x${TRIES}: ${seen}, ${leaks} leaked`);
  assert.equal(leaks, 0);
});
