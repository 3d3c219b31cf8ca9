/**
 * Where a root's journal lives: `$XDG_DATA_HOME/mewcode/journal/<hash of the root's real path>`, else
 * `~/.local/share/...` — a data directory, not the temp or cache one, since undo must survive
 * restarts and cache cleaners; never inside the tree. Made 0700 and, like the spill directory
 * (lib/core/spill_dir.ts), used only when it is the user's own: not a symlink, owned by the user, not
 * writable by others — whoever could write there could choose what undo writes into the tree.
 */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import path from 'node:path';
import { ownPrivateDir } from '../core/private_dir.ts';
import type { Result } from '../core/result.ts';

/** The directory that holds every root's journal. */
export function journalBase(env: NodeJS.ProcessEnv = process.env): string {
  const data = env.XDG_DATA_HOME ? path.resolve(env.XDG_DATA_HOME) : path.join(homedir(), '.local', 'share');
  return path.join(data, 'mewcode', 'journal');
}

/** The journal directory of `root` (a real path) under `base`. */
export const journalDirFor = (base: string, root: string) =>
  path.join(base, createHash('sha256').update(root).digest('hex').slice(0, 16));

/** Makes `dir` and its missing parents (0700), then accepts it and its parent only if they are the user's own. */
export const ownJournalDir = (dir: string): Result<string, string> => ownPrivateDir(dir, 'the journal directory');
