/**
 * The user's record of trusted folders, `~/.mewcode/trusted.json`: keyed by a root's real path, the
 * sha256 digest of the project and local settings the user trusted there, and the allow rules the
 * user granted there by answering "always" (MewCode wrote those into settings.local.json itself).
 *
 *   { "/home/me/src/app": { "digest": "9f2c…", "granted": ["bash(=npm test)"] } }
 *
 * Whoever can write this file can make MewCode trust anything, so it is treated like `~/.ssh`: a
 * file (or directory) writable by other users or owned by someone else is refused, and so is a file
 * that is not valid — a clear error naming the file, never silently "no trust" that a rewrite would
 * then erase. It is replaced atomically (a 0600 temp file renamed over it; the directory is created
 * 0700). Two runtimes recording at once can lose one record (the last rename wins); that costs a
 * question again, never trust nobody gave. Main thread.
 */
import {
  closeSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { errValue, okValue, type Result } from '../core/result.ts';

const Entry = v.strictObject({
  digest: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'a digest is 64 hex digits'))),
  granted: v.optional(v.array(v.string())),
});
const Store = v.record(v.string(), Entry);

type TrustEntry = v.InferOutput<typeof Entry>;
export type TrustStore = v.InferOutput<typeof Store>;

export const trustStorePath = (home: string) => path.join(home, '.mewcode', 'trusted.json');

const FIX = 'fix it or delete it (deleting it forgets every trusted folder)';

/** The whole record; a missing file is an empty record. */
export function readTrustStore(home: string): Result<TrustStore, string> {
  const file = trustStorePath(home);
  let text: string;
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return okValue({});
    return errValue(`Cannot read ${file}: ${(e as NodeJS.ErrnoException).code}; ${FIX}`);
  }
  try {
    const loose =
      looselyPermitted(fstatSync(fd), file) ?? looselyPermitted(statSync(path.dirname(file)), path.dirname(file));
    if (loose) return errValue(loose);
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return errValue(`${file} is not valid JSON (${(e as Error).message}); ${FIX}`);
  }
  const parsed = v.safeParse(Store, json);
  if (!parsed.success)
    return errValue(`${file} is not a valid trust record (${v.summarize(parsed.issues).replace(/\n/g, '; ')}); ${FIX}`);
  return okValue(parsed.output);
}

/** Changes one root's entry and replaces the file atomically. */
export function updateTrustStore(
  home: string,
  root: string,
  change: (entry: TrustEntry) => TrustEntry,
): Result<void, string> {
  const current = readTrustStore(home);
  if (!current.ok) return current;
  const store = { ...current.value, [root]: change(current.value[root] ?? {}) };
  const file = trustStorePath(home);
  const dir = path.dirname(file);
  const temp = path.join(dir, `.trusted.json.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(store, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
    const dfd = openSync(dir, 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
    return okValue(undefined);
  } catch (e) {
    rmSync(temp, { force: true });
    return errValue(`Cannot record the trust in ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Why a file or directory other users could change may not hold trust, or undefined when it is fine. */
function looselyPermitted(st: { uid: number; mode: number }, what: string): string | undefined {
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid)
    return `${what} belongs to another user (uid ${st.uid}), so it cannot say what you trust; remove it or chown it to yourself`;
  if (st.mode & 0o022)
    return `${what} is writable by other users, so it cannot say what you trust; make it yours alone (chmod ${
      what.endsWith('.json') ? '600' : '700'
    } ${what})`;
  return undefined;
}
