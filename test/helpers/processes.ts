/**
 * Processes a test started and must see gone: found by a marker word in their command line, waited
 * for, and killed (by pid) when the test ends, so a failing run leaves no sleeper behind.
 */
import { execFileSync } from 'node:child_process';
import { after } from 'node:test';
import { waitFor } from './wait.ts';

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
