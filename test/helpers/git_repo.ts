/** Real git repositories for the shell journal's tests: committed, their files clean in git's eyes. */
import { execFileSync } from 'node:child_process';
import { statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { RACY_NS } from '../../lib/history/shell_before.ts';

export const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });

/**
 * Commits every file under `root`, makes them older than the index (so git calls them clean, not
 * racily clean), and waits until their ctimes are past the shell journal's racy window — the
 * window in which a file's bytes are copied before a command whatever git says.
 */
export async function commitClean(root: string, files: readonly string[]): Promise<void> {
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'base');
  const old = new Date(Date.now() - 60_000);
  for (const f of files) utimesSync(path.join(root, f), old, old);
  git(root, 'update-index', '--refresh');
  await pastRacyWindow(root, files);
}

/** Waits (for the clock, not a guess) until every file's ctime is older than the racy window. */
export async function pastRacyWindow(root: string, files: readonly string[]): Promise<void> {
  const window = Number(RACY_NS / 1_000_000n) * 2;
  const newest = Math.max(...files.map((f) => statSync(path.join(root, f)).ctimeMs));
  while (Date.now() - newest <= window) await new Promise((resolve) => setTimeout(resolve, 10));
}
