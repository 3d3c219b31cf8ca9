/**
 * The temp-file journal: every temp file the write lane creates is listed in a per-process journal
 * under the OS temp dir until it is renamed or removed. A process killed mid-write leaves its journal
 * behind; the next runtime to start removes the temp files of journals whose process is gone.
 * Main thread.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const DIR = () => path.join(tmpdir(), 'mewcode-journal');
const mine = () => path.join(DIR(), `${process.pid}.txt`);
const open = new Set<string>();

/** Notes a temp file about to be created. */
export function journalAdd(tempPath: string): void {
  open.add(tempPath);
  try {
    mkdirSync(DIR(), { recursive: true, mode: 0o700 });
    appendFileSync(mine(), `${tempPath}\n`, { mode: 0o600 });
  } catch {
    // Without a journal a crash may leave a temp file behind; the write itself is still atomic.
  }
}

/** Notes that a temp file is gone (renamed into place or removed). */
export function journalDone(tempPath: string): void {
  open.delete(tempPath);
  try {
    if (open.size === 0) rmSync(mine(), { force: true });
    else writeFileSync(mine(), [...open].map((p) => `${p}\n`).join(''), { mode: 0o600 });
  } catch {
    // as above
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes the temp files left by processes that died mid-write; returns the paths removed. */
export function sweepJournals(): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(DIR());
  } catch {
    return removed;
  }
  for (const name of names) {
    const pid = Number.parseInt(name, 10);
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    const file = path.join(DIR(), name);
    try {
      for (const temp of readFileSync(file, 'utf8').split('\n')) {
        // Only our own temp names: a corrupt journal must never delete anything else.
        if (!temp || !/\.mewcode-tmp$/.test(temp)) continue;
        try {
          unlinkSync(temp);
          removed.push(temp);
        } catch {
          // already gone: renamed into place before the crash, or removed
        }
      }
      rmSync(file, { force: true });
    } catch {
      // unreadable journal: leave it
    }
  }
  return removed;
}
