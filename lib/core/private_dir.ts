/**
 * A directory only its user can change (the journal's, the audit log's): made 0700 with its missing
 * parents, then accepted with its parent only if they are not symbolic links, are directories, belong
 * to the user and are not writable by others — whoever could write there could choose what is read
 * back from it (what undo writes into the tree, what an audit says happened).
 */
import { lstatSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { errValue, okValue, type Result } from './result.ts';

const uid = () => process.geteuid?.() ?? process.getuid?.();

/** `dir` when it is the user's own; `what` names it in the refusal ("the journal directory"). */
export function ownPrivateDir(dir: string, what: string): Result<string, string> {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 }); // a directory already there keeps its mode: checked below
  } catch (e) {
    return errValue(`${what} ${dir} cannot be created (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  for (const d of [path.dirname(dir), dir]) {
    const fix = `remove it (rm -r ${d}) and MewCode will create its own`;
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(d);
    } catch (e) {
      return errValue(`${what} ${d} cannot be checked (${(e as NodeJS.ErrnoException).code ?? e})`);
    }
    if (st.isSymbolicLink()) return errValue(`${what} ${d} is a symbolic link; ${fix}`);
    if (!st.isDirectory()) return errValue(`${what} ${d} is not a directory; ${fix}`);
    const me = uid();
    if (me !== undefined && st.uid !== me) return errValue(`${what} ${d} belongs to uid ${st.uid}; ${fix}`);
    if (st.mode & 0o022)
      return errValue(`${what} ${d} is writable by others (mode ${(st.mode & 0o777).toString(8)}); chmod 700 it`);
  }
  return okValue(dir);
}
