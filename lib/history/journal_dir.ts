/**
 * Where a root's journal lives: `$XDG_DATA_HOME/mewcode/journal/<hash of the root's real path>`, else
 * `~/.local/share/...` — a data directory, not the temp or cache one, since undo must survive
 * restarts and cache cleaners; never inside the tree. Made 0700 and, like the spill directory
 * (lib/core/spill_dir.ts), used only when it is the user's own: not a symlink, owned by the user, not
 * writable by others — whoever could write there could choose what undo writes into the tree.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { errValue, okValue, type Result } from '../core/result.ts';

/** The directory that holds every root's journal. */
export function journalBase(env: NodeJS.ProcessEnv = process.env): string {
  const data = env.XDG_DATA_HOME ? path.resolve(env.XDG_DATA_HOME) : path.join(homedir(), '.local', 'share');
  return path.join(data, 'mewcode', 'journal');
}

/** The journal directory of `root` (a real path) under `base`. */
export const journalDirFor = (base: string, root: string) =>
  path.join(base, createHash('sha256').update(root).digest('hex').slice(0, 16));

const uid = () => process.geteuid?.() ?? process.getuid?.();

/** Makes `dir` and its missing parents (0700), then accepts it and its parent only if they are the user's own. */
export function ownJournalDir(dir: string): Result<string, string> {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 }); // a directory already there keeps its mode: checked below
  } catch (e) {
    return errValue(`the journal directory ${dir} cannot be created (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  for (const d of [path.dirname(dir), dir]) {
    const fix = `remove it (rm -r ${d}) and MewCode will create its own`;
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(d);
    } catch (e) {
      return errValue(`the journal directory ${d} cannot be checked (${(e as NodeJS.ErrnoException).code ?? e})`);
    }
    if (st.isSymbolicLink()) return errValue(`the journal directory ${d} is a symbolic link; ${fix}`);
    if (!st.isDirectory()) return errValue(`the journal directory ${d} is not a directory; ${fix}`);
    const me = uid();
    if (me !== undefined && st.uid !== me)
      return errValue(`the journal directory ${d} belongs to uid ${st.uid}; ${fix}`);
    if (st.mode & 0o022)
      return errValue(
        `the journal directory ${d} is writable by others (mode ${(st.mode & 0o777).toString(8)}); chmod 700 it`,
      );
  }
  return okValue(dir);
}
