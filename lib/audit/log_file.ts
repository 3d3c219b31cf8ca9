/**
 * The audit trail as a JSON Lines file: one record a line, appended with one write each (O_APPEND, so
 * lines of several processes sharing the log never interleave), mode 0600. When the file passes
 * `maxBytes` it is renamed `<name>.1` (`.1` → `.2` …, the oldest past `keep` removed) and a new one
 * begun; a writer whose file was rotated by another process follows to the new one. A write that fails
 * is said once (through `warn`) and the calls go on: the log must never fail the work it records. The
 * default place is the user's data directory, in a directory only the user may change. Main thread.
 */
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { AuditRecord, AuditSink } from '../core/audit_record.ts';
import { ownPrivateDir } from '../core/private_dir.ts';
import { errValue, okValue, type Result } from '../core/result.ts';

export const DEFAULT_AUDIT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_AUDIT_KEEP = 5;

export interface AuditLogOptions {
  /** Rotate past this size (default 10 MiB). */
  maxBytes?: number;
  /** Rotated files kept besides the current one (default 5). */
  keep?: number;
  /** Told once when the log cannot be written (default: stderr). */
  warn?: (line: string) => void;
}

export interface AuditLog {
  readonly path: string;
  readonly sink: AuditSink;
  close(): void;
}

/** `$XDG_DATA_HOME/mewcode/audit/audit.jsonl`, else under `~/.local/share`. */
export function defaultAuditPath(env: NodeJS.ProcessEnv = process.env): string {
  const data = env.XDG_DATA_HOME ? path.resolve(env.XDG_DATA_HOME) : path.join(homedir(), '.local', 'share');
  return path.join(data, 'mewcode', 'audit', 'audit.jsonl');
}

/**
 * Opens the log for appending. `own`: the default place, whose directory must be the user's alone
 * and whose file may not be a symbolic link; a path the user named is taken as it is.
 */
export function openAuditLog(file: string, o: AuditLogOptions & { own?: boolean } = {}): Result<AuditLog, string> {
  const maxBytes = o.maxBytes ?? DEFAULT_AUDIT_MAX_BYTES;
  const keep = o.keep ?? DEFAULT_AUDIT_KEEP;
  if (!(Number.isSafeInteger(maxBytes) && maxBytes > 0))
    return errValue(`maxBytes must be a whole number of bytes over 0, not ${JSON.stringify(maxBytes)}`);
  if (!(Number.isSafeInteger(keep) && keep >= 0))
    return errValue(`keep must be a whole number of files, 0 or more, not ${JSON.stringify(keep)}`);
  const dir = path.dirname(path.resolve(file));
  const made = o.own ? ownPrivateDir(dir, 'the audit log directory') : madeDir(dir);
  if (!made.ok) return made;
  const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (o.own ? constants.O_NOFOLLOW : 0);
  const open = () => openSync(file, flags, 0o600);
  let fd: number;
  try {
    fd = open();
  } catch (e) {
    return errValue(`the audit log ${file} cannot be opened (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  const warn = o.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  let failed = false;
  let closed = false;
  // The last write was cut short (a full disk): the next record starts on a line of its own.
  let torn = false;
  const sink: AuditSink = (r: AuditRecord) => {
    if (closed) return;
    try {
      const line = Buffer.from(`${torn ? '\n' : ''}${JSON.stringify(r)}\n`);
      // The path's file, not only ours: another process may have rotated it (a stat, ~3 µs).
      const now = followRotation(file, fd, open);
      fd = now.fd;
      if (now.size > 0 && now.size + line.length > maxBytes)
        fd = rotateLocked(file, fd, { keep, maxBytes, open }, line.length);
      const written = writeSync(fd, line);
      torn = written < line.length;
      if (torn) throw Object.assign(new Error('a short write'), { code: 'ENOSPC' });
    } catch (e) {
      if (!failed) warn(`mewcode: the audit log ${file} cannot be written (${(e as NodeJS.ErrnoException).code ?? e})`);
      failed = true;
    }
  };
  return okValue({
    path: file,
    sink,
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  });
}

function madeDir(dir: string): Result<string, string> {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return okValue(dir);
  } catch (e) {
    return errValue(`the audit log's directory ${dir} cannot be created (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
}

/** The fd of the file now at `file`, and its size: another process may have rotated ours away. */
function followRotation(file: string, fd: number, open: () => number): { fd: number; size: number } {
  const mine = fstatSync(fd);
  let there: ReturnType<typeof statSync> | undefined;
  try {
    there = statSync(file);
  } catch {
    there = undefined;
  }
  if (there && there.ino === mine.ino && there.dev === mine.dev) return { fd, size: mine.size };
  closeSync(fd);
  const opened = open();
  return { fd: opened, size: fstatSync(opened).size };
}

/** A lock older than this was left by a writer that died while rotating. */
const STALE_LOCK_MS = 30_000;

/**
 * Rotates holding `<file>.lock` (made O_EXCL), so two writers never shift the files at once — one
 * would rename over what the other just moved. The file is looked at again under the lock (another
 * writer may have rotated it meanwhile). A writer that finds the lock taken goes on writing to its
 * file, rotated or not: its lines land in one of the kept files either way.
 */
function rotateLocked(
  file: string,
  fd: number,
  o: { keep: number; maxBytes: number; open: () => number },
  lineBytes: number,
): number {
  const lock = `${file}.lock`;
  let held: number;
  try {
    held = openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    breakStaleLock(lock);
    return fd;
  }
  try {
    const now = followRotation(file, fd, o.open);
    if (now.size === 0 || now.size + lineBytes <= o.maxBytes) return now.fd;
    return rotate(file, now.fd, o.keep, o.open);
  } finally {
    closeSync(held);
    unlinkSync(lock);
  }
}

function breakStaleLock(lock: string): void {
  try {
    if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
  } catch {
    // gone already: its holder finished
  }
}

/** Shifts `file` → `file.1` → … (the oldest past `keep` removed) and opens a new `file`. */
function rotate(file: string, fd: number, keep: number, open: () => number): number {
  closeSync(fd);
  if (keep === 0) unlinkSync(file);
  else {
    for (let i = keep; i >= 1; i--) {
      const from = i === 1 ? file : `${file}.${i - 1}`;
      try {
        renameSync(from, `${file}.${i}`);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  }
  return open();
}

/** The log and its rotated files that exist, oldest first: what `mewcode stats` reads. */
export function auditFiles(file: string): string[] {
  const dir = path.dirname(file);
  const base = path.basename(file);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const rotated = names
    // `.1`, never `.01`: the names rotation makes, each file once.
    .map((n) => ({ n, suffix: n.startsWith(`${base}.`) ? n.slice(base.length + 1) : '' }))
    .map(({ n, suffix }) => ({ n, i: /^[1-9][0-9]*$/.test(suffix) ? Number(suffix) : Number.NaN }))
    .filter((x) => Number.isSafeInteger(x.i) && x.i > 0)
    .sort((a, b) => b.i - a.i)
    .map((x) => path.join(dir, x.n));
  return [...rotated, ...(names.includes(base) ? [file] : [])];
}
