/**
 * The path gate: the only producer of `CheckedPath`, the type every file helper accepts. A path is
 * normalised, checked lexically against the root, then resolved the way the kernel will see it (the
 * real path of the nearest existing ancestor plus the missing tail, dangling symlink leaves followed)
 * and checked again. `/proc`, `/sys` and device files are refused. A read outside the root passes
 * only below a path read permission grants (`--allow-read=/etc`), and only when the caller asks for
 * the grants (the read tools do, bash's working directory does not): the grant is resolved as the
 * root is, and the path must stay below it both as written and resolved. Runs in either lane;
 * synchronous on purpose so a check and its use are not separated by other work on the same thread.
 */
import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { type CheckedPath, displayPath, inside } from '../core/paths.ts';
import { errValue, okValue, type Result } from '../core/result.ts';
import { quote } from '../core/text.ts';

export type PathKind = 'read' | 'write';

interface GateError {
  code: 'invalid_args' | 'outside_root' | 'permission_denied' | 'not_a_file' | 'io';
  message: string;
}

interface GateOptions {
  /** The directory every relative path is resolved against; it must exist. */
  root: string;
  /** Directories outside the root that may be read (the root's spill directory): a list, or made from the root's real path. */
  extraReadRoots?: readonly string[] | ((root: string) => readonly string[]);
  /**
   * Paths read permission grants (relative to the root or absolute): below them a read outside the
   * root passes when the check asks for grants. Resolved once, here, the way the root is.
   */
  readGrants?: readonly string[];
}

export interface CheckOptions {
  /** Let a read below a granted read path outside the root pass (the read tools, the policy's own paths). */
  grants?: boolean;
}

export interface PathGate {
  /** The real path of the root. */
  readonly root: string;
  check(input: string, kind: PathKind, options?: CheckOptions): Result<CheckedPath, GateError>;
  /** How a checked path is shown to the model: relative to the root with `/`, or absolute outside it. */
  display(p: string): string;
}

/** Kernel interfaces, not files: reading them can leak the environment or memory (Deno's "special" files). */
const SPECIAL_PREFIXES = ['/proc', '/sys'] as const;
const MAX_LINK_HOPS = 40;
/** Linux PATH_MAX and NAME_MAX, in bytes: longer paths fail in the kernel anyway, so fail early and clearly. */
const PATH_MAX = 4096;
const NAME_MAX = 255;

export function createGate(options: GateOptions): Result<PathGate, GateError> {
  const given = path.resolve(options.root);
  let root: string;
  try {
    root = realpathSync.native(given);
    if (!statSync(root).isDirectory())
      return errValue({ code: 'invalid_args', message: `The root ${quote(given)} is not a directory` });
  } catch (e) {
    return errValue({
      code: 'invalid_args',
      message: `The root ${quote(given)} does not exist or cannot be opened (${errCode(e)})`,
    });
  }
  const extraRoots =
    typeof options.extraReadRoots === 'function' ? options.extraReadRoots(root) : options.extraReadRoots;
  const extra = (extraRoots ?? []).map((r) => realOrSelf(path.resolve(r)));
  // A grant is checked as written (lexically) and as resolved, as the root is: both must hold it.
  const grants = (options.readGrants ?? []).map((g) => {
    const written = path.resolve(given, g);
    return { written, real: realOrSelf(written) };
  });

  const display = (p: string) => displayPath(root, p);

  function check(input: string, kind: PathKind, o: CheckOptions = {}): Result<CheckedPath, GateError> {
    const verb = kind === 'read' ? 'read' : 'write';
    if (typeof input !== 'string' || input === '')
      return errValue({
        code: 'invalid_args',
        message: 'The path is empty; give a file path relative to the root or absolute',
      });
    if (input.includes('\0'))
      return errValue({
        code: 'invalid_args',
        message: `Cannot ${verb} ${quote(input)}: the path contains a NUL byte`,
      });

    // A path spelled through the root as given (e.g. a symlinked checkout) means the same place.
    let abs = path.resolve(root, input);
    if (given !== root && inside(abs, given)) abs = path.join(root, path.relative(given, abs));
    const allowed = kind === 'read' ? [root, ...extra] : [root];
    const granted = kind === 'read' && o.grants ? grants : [];
    const rootNote = `outside the root ${quote(root)}`;
    const lexicalGrant = granted.some((g) => inside(abs, g.written) || inside(abs, g.real));
    if (!allowed.some((r) => inside(abs, r)) && !lexicalGrant) {
      return errValue({
        code: 'outside_root',
        message: `Cannot ${verb} ${quote(input)}: ${quote(abs)} is ${rootNote}`,
      });
    }
    if (isSpecial(abs))
      return errValue({
        code: 'permission_denied',
        message: `Cannot ${verb} ${quote(input)}: ${quote(abs)} is a kernel interface, not a file`,
      });

    let real: string;
    try {
      if (Buffer.byteLength(abs) >= PATH_MAX || abs.split(path.sep).some((c) => Buffer.byteLength(c) > NAME_MAX)) {
        throw Object.assign(new Error('ENAMETOOLONG'), { code: 'ENAMETOOLONG' });
      }
      real = resolveReal(abs, 0);
    } catch (e) {
      const code = errCode(e);
      if (code === 'ELOOP')
        return errValue({
          code: 'io',
          message: `Cannot ${verb} ${quote(input)}: too many levels of symbolic links (a symlink loop)`,
        });
      if (code === 'ENAMETOOLONG')
        return errValue({ code: 'io', message: `Cannot ${verb} ${quote(input)}: the file name is too long` });
      if (code === 'EACCES')
        return errValue({
          code: 'permission_denied',
          message: `Cannot ${verb} ${quote(input)}: the operating system denied access`,
        });
      return errValue({ code: 'io', message: `Cannot ${verb} ${quote(input)}: ${code}` });
    }
    if (!allowed.some((r) => inside(real, r)) && !granted.some((g) => inside(real, g.real))) {
      return errValue({
        code: 'outside_root',
        message: `Cannot ${verb} ${quote(input)}: it resolves through a symlink to ${quote(real)}, ${rootNote}`,
      });
    }
    if (isSpecial(real))
      return errValue({
        code: 'permission_denied',
        message: `Cannot ${verb} ${quote(input)}: ${quote(real)} is a kernel interface, not a file`,
      });
    const type = fileType(real);
    if (type)
      return errValue({
        code: 'not_a_file',
        message: `Cannot ${verb} ${quote(input)}: it is a ${type}, not a regular file`,
      });
    return okValue(real as CheckedPath);
  }

  return okValue({ root, check, display });
}

const isSpecial = (p: string) => SPECIAL_PREFIXES.some((s) => inside(p, s));

/**
 * The path the kernel would reach: realpath when the path exists; otherwise the real path of the
 * nearest existing ancestor plus the missing tail, following a dangling symlink leaf to its target
 * (writing through it would create the target, so the target is what must be inside the root).
 */
function resolveReal(abs: string, hops: number): string {
  if (hops > MAX_LINK_HOPS) throw Object.assign(new Error('ELOOP'), { code: 'ELOOP' });
  try {
    return realpathSync.native(abs);
  } catch (e) {
    const code = errCode(e);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
  }
  const parent = path.dirname(abs);
  if (parent === abs) return abs;
  let isLink = false;
  try {
    isLink = lstatSync(abs).isSymbolicLink();
  } catch {
    // Missing leaf: resolve the parent below.
  }
  if (isLink) return resolveReal(path.resolve(parent, readlinkSync(abs)), hops + 1);
  return path.join(resolveReal(parent, hops), path.basename(abs));
}

function fileType(real: string): string | undefined {
  try {
    const st = lstatSync(real);
    if (st.isCharacterDevice()) return 'character device';
    if (st.isBlockDevice()) return 'block device';
    if (st.isFIFO()) return 'named pipe (FIFO)';
    if (st.isSocket()) return 'socket';
  } catch {
    // Missing: fine for the gate; the tool reports not_found.
  }
  return undefined;
}

function realOrSelf(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

const errCode = (e: unknown) => String((e as NodeJS.ErrnoException)?.code ?? (e as Error)?.message ?? e);
