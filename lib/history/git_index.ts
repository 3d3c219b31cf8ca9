/**
 * Git's index file (`.git/index`, versions 2 to 4), read for what a shell command's journal needs:
 * which tracked files are clean — their stat as git last recorded it, with the blob that holds their
 * bytes — so that a clean file the command changes has its before-image in git's object store
 * instead of a copy taken before every command. Only what git itself trusts counts: stage-0 entries,
 * neither skip-worktree nor intent-to-add, SHA-1 repositories, and not "racily clean" (an entry
 * whose mtime is not older than the index file, which git re-hashes rather than trusts). Anything
 * this reader does not understand (another signature or version, a truncated file) gives no entries:
 * every file is then copied or named, never trusted. Pure parsing, no I/O.
 */

/** What git recorded of one clean-candidate file: the stat fields it compares, and the blob. */
export interface GitIndexEntry {
  ctimeS: number;
  ctimeNs: number;
  mtimeS: number;
  mtimeNs: number;
  ino: number;
  /** 0o100644, 0o100755 or 0o120000 (a symlink), as git stores it. */
  mode: number;
  /** Low 32 bits of the size, as git stores it. */
  size: number;
  /** Hex SHA-1 of the blob. */
  oid: string;
}

const HEADER = 12;
/** ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each), the SHA-1 (20), flags (2). */
const FIXED = 62;
const EXTENDED = 0x4000;
const SKIP_WORKTREE = 0x4000;
const INTENT_TO_ADD = 0x2000;

/** Parses an index; entries by path relative to the repository's top. Undefined: not an index this reader trusts. */
export function parseGitIndex(buf: Buffer): Map<string, GitIndexEntry> | undefined {
  if (buf.length < HEADER || buf.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = buf.readUInt32BE(8);
  const out = new Map<string, GitIndexEntry>();
  let at = HEADER;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    if (at + FIXED > buf.length) return undefined;
    const flags = buf.readUInt16BE(at + 60);
    let nameAt = at + FIXED;
    let extra = 0;
    if (flags & EXTENDED) {
      if (version < 3) return undefined;
      extra = buf.readUInt16BE(nameAt);
      nameAt += 2;
    }
    const named = version === 4 ? prefixedName(buf, nameAt, previous) : paddedName(buf, at, nameAt);
    if (!named) return undefined;
    previous = named.name;
    const stage = (flags >> 12) & 3;
    if (stage === 0 && (extra & (SKIP_WORKTREE | INTENT_TO_ADD)) === 0)
      out.set(named.name.toString('utf8'), entryAt(buf, at));
    at = named.next;
  }
  return out;
}

function entryAt(buf: Buffer, at: number): GitIndexEntry {
  return {
    ctimeS: buf.readUInt32BE(at),
    ctimeNs: buf.readUInt32BE(at + 4),
    mtimeS: buf.readUInt32BE(at + 8),
    mtimeNs: buf.readUInt32BE(at + 12),
    ino: buf.readUInt32BE(at + 20),
    mode: buf.readUInt32BE(at + 24),
    size: buf.readUInt32BE(at + 36),
    oid: buf.toString('hex', at + 40, at + 60),
  };
}

/** Versions 2 and 3: the name ends with 1 to 8 NULs that pad the entry to a multiple of 8 bytes. */
function paddedName(buf: Buffer, entryStart: number, nameAt: number): { name: Buffer; next: number } | undefined {
  const end = buf.indexOf(0, nameAt);
  if (end === -1) return undefined;
  const length = end - entryStart;
  return { name: buf.subarray(nameAt, end), next: entryStart + ((length + 8) & ~7) };
}

/** Version 4: how many bytes to drop from the previous name (git's offset varint), then the rest, NUL-ended. */
function prefixedName(buf: Buffer, at: number, previous: Buffer): { name: Buffer; next: number } | undefined {
  let c = buf[at++];
  if (c === undefined) return undefined;
  let drop = c & 127;
  while (c & 128) {
    c = buf[at++];
    if (c === undefined) return undefined;
    drop = ((drop + 1) << 7) | (c & 127);
  }
  const end = buf.indexOf(0, at);
  if (end === -1 || drop > previous.length) return undefined;
  const name = Buffer.concat([previous.subarray(0, previous.length - drop), buf.subarray(at, end)]);
  return { name, next: end + 1 };
}

/** A file's stat as git compares it (bigint lstat, for the nanoseconds). */
export interface StatForGit {
  ctimeNs: bigint;
  mtimeNs: bigint;
  ino: bigint;
  size: bigint;
  mode: number;
}

const NS = 1_000_000_000n;
const low32 = (n: bigint) => Number(n & 0xffffffffn);

/**
 * Whether git would call the file clean without reading it: the same ctime, mtime, inode, size and
 * kind and executable bit, and an mtime older than the index's own (else it is racily clean).
 */
export function cleanFor(e: GitIndexEntry, st: StatForGit, indexMtimeNs: bigint): boolean {
  const mtimeNs = BigInt(e.mtimeS) * NS + BigInt(e.mtimeNs);
  if (mtimeNs >= indexMtimeNs) return false;
  const kind = st.mode & 0o170000;
  const gitMode = kind === 0o120000 ? 0o120000 : kind === 0o100000 ? (st.mode & 0o100 ? 0o100755 : 0o100644) : 0;
  return (
    gitMode === e.mode &&
    low32(st.size) === e.size &&
    low32(st.ino) === e.ino &&
    mtimeNs === st.mtimeNs &&
    BigInt(e.ctimeS) * NS + BigInt(e.ctimeNs) === st.ctimeNs
  );
}
