/**
 * What a shell command changed in the root, told to its journal entry after the command: the entries
 * the watches saw change (live_tree.ts), or the whole root walked again, are compared with the states
 * taken before (shell_before.ts). A file
 * created, rewritten, re-moded or deleted is recorded with its before-image (the copy taken before,
 * or git's blob of a clean file) and its after-image (read now); a directory the command made is
 * recorded as made. What cannot be recorded is named, with why: a symlink, a file too large, a file
 * whose earlier bytes were neither copied nor in git, an empty directory removed, and any change
 * under a path the ignore files exclude. Main thread.
 */
import path from 'node:path';
import type { ChangeSink, FileImage } from '../files/changes.ts';
import { CheckedDirs, readAsStated } from './checked_dirs.ts';
import { fetchBlobs } from './git_repo.ts';
import { FILE_MAX } from './kept_copies.ts';
import { blobOf, type ShellBefore } from './shell_before.ts';
import { type Change, diffStates, type Excluded, type StateChanges, underIgnored } from './state_changes.ts';
import { type EntryState, isRegular, sameState, treeStates } from './tree_states.ts';

/** A change the journal could not record, and why. */
export interface NotRecorded {
  /** Relative to the root, `/`-separated; a directory ends with `/`. */
  path: string;
  why: string;
}

export interface ShellChanges {
  /** Files recorded (created, modified or deleted). */
  recorded: number;
  notRecorded: NotRecorded[];
  /** The root held more files than the limit after the command: nothing was compared. */
  cut?: boolean;
}

const MIB = 1024 * 1024;
/** The most file bytes (before and after) one command's entry holds. */
export const COMMAND_BYTES = 256 * MIB;
const OVER_COMMAND = `past the ${COMMAND_BYTES / MIB} MiB of file images the journal records of one command`;
/** Why a command's changes were not looked for: the root holds more files than the journal compares. */
export const tooMany = (max: number, when: string, unwatched = false) =>
  max === 0
    ? 'the journal records no shell command here (journal.shellMaxFiles is 0)'
    : unwatched
      ? `the root held more than ${max.toLocaleString('en-US')} files ${when}: the system refused the directory watches that keep a larger root's states (fs.inotify.max_user_watches), and without them a root is walked whole around each command, up to that many files (docs/undo.md)`
      : `the root held more than ${max.toLocaleString('en-US')} files ${when}: a command's changes are recorded only in roots of up to that many (journal.shellMaxFiles; docs/undo.md)`;
const TOO_LARGE = (n: bigint) =>
  `${(Number(n) / MIB).toFixed(1)} MiB, over the ${FILE_MAX / MIB} MiB the journal records of a file a command changes`;
const NOT_KEPT =
  'its bytes before the command were not kept (not clean in git, and past the copies taken before each command)';

const CONVERTED =
  "git's blob of it is not its bytes (git converted them: end of lines, a filter such as git-lfs's, an encoding), and no copy was kept";

interface Pending {
  rel: string;
  before: EntryState | undefined;
  after: EntryState | undefined;
}

export async function afterCommand(b: ShellBefore, sink: ChangeSink): Promise<ShellChanges> {
  const looked = await lookAfter(b);
  if ('why' in looked)
    return { recorded: 0, notRecorded: [{ path: '.', why: looked.why }], ...(looked.cut ? { cut: true } : {}) };
  const { changes, now } = looked;
  if (b.excluded.opaque.has('') || now.opaque.has(''))
    return { recorded: 0, notRecorded: [{ path: '.', why: 'the journal could not list the root' }] };
  const notRecorded: NotRecorded[] = [];
  const dirs = new CheckedDirs(b.root);
  try {
    return await compared(b, changes, now, sink, dirs, notRecorded);
  } finally {
    dirs.close();
  }
}

type Looked = { changes: StateChanges; now: Excluded } | { why: string; cut?: boolean };

/** What may have changed: from the live tree, or a whole walk compared with the one before. */
async function lookAfter(b: ShellBefore): Promise<Looked> {
  const cut = () => ({ why: tooMany(b.scope.maxFiles, 'after the command', !b.live), cut: true });
  if (b.live) {
    const changes = await b.live.refresh();
    if (changes === 'cut') return cut();
    if (changes === 'unwatched')
      return { why: "the journal lost its watches of the root during the command (the system's inotify limit)" };
    return { changes, now: b.live.states };
  }
  // The command may have added files: compared up to twice the limit, so it is never cut for that alone.
  const now = treeStates(b.root, { ...b.scope, maxFiles: 2 * b.scope.maxFiles + 1000 });
  if (now.cut || !b.states) return cut();
  return { changes: diffStates(b.states, now, b.racy), now };
}

async function compared(
  b: ShellBefore,
  changes: StateChanges,
  now: Excluded,
  sink: ChangeSink,
  dirs: CheckedDirs,
  notRecorded: NotRecorded[],
): Promise<ShellChanges> {
  const changed = withinBudget(b, changedFiles(b, changes, now, dirs), notRecorded);
  const oids = new Map<string, string>();
  for (const c of changed) {
    const oid = c.before && !b.copies.get(c.rel, c.before) ? blobOf(b, c.rel, c.before) : undefined;
    if (oid) oids.set(c.rel, oid);
  }
  const blobs =
    b.repo && oids.size > 0 ? await fetchBlobs(b.repo, [...new Set(oids.values())]) : new Map<string, Buffer>();
  let recorded = 0;
  for (const c of changed) {
    const images = imagesOf(b, c, oids, blobs, dirs);
    if ('why' in images) notRecorded.push({ path: c.rel, why: images.why });
    else {
      sink.file(path.join(b.root, c.rel), images.before, images.after);
      recorded++;
    }
  }
  const made = [...changes.dirs].filter(([d, c]) => !c.before && c.after && !underIgnored(b.excluded, d));
  for (const [d] of made.sort(([x], [y]) => (x < y ? -1 : 1))) sink.dir(path.join(b.root, d));
  notRecorded.push(...emptyDirsRemoved(changes), ...ignoredChanges(b.excluded, changes, now));
  return { recorded, notRecorded };
}

/**
 * The changes whose images fit in what one command may hold in memory and add to the journal, in
 * path order; the rest are named. Sizes are the stat's: a file over FILE_MAX is named by imagesOf.
 */
function withinBudget(b: ShellBefore, changed: Pending[], notRecorded: NotRecorded[]): Pending[] {
  let bytes = 0;
  const kept: Pending[] = [];
  for (const c of changed) {
    const size = (s: EntryState | undefined) => (s && s.size <= BigInt(FILE_MAX) ? Number(s.size) : 0);
    // A change whose earlier bytes were not kept is named anyway (imagesOf): it spends nothing.
    const keptBefore =
      !c.before || b.copies.get(c.rel, c.before) !== undefined || blobOf(b, c.rel, c.before) !== undefined;
    const more = keptBefore ? size(c.before) + size(c.after) : 0;
    if (bytes + more > COMMAND_BYTES) notRecorded.push({ path: c.rel, why: OVER_COMMAND });
    else {
      bytes += more;
      kept.push(c);
    }
  }
  return kept;
}

/** Files whose state differs (or, for a racy one, whose bytes differ), in path order. */
function changedFiles(b: ShellBefore, changes: StateChanges, now: Excluded, dirs: CheckedDirs): Pending[] {
  const out: Pending[] = [];
  for (const rel of [...changes.files.keys()].sort()) {
    const { before, after } = changes.files.get(rel) as Change<EntryState>;
    if (!before && !after) continue;
    if (before && after && sameState(before, after) && !racyChanged(b, rel, before, after, dirs)) continue;
    // Unseen on one side because an ignore file changed (the entry covering it is named by
    // ignoredChanges): not made or deleted by the command — an undo must not delete or restore it.
    if ((!before && underIgnored(b.excluded, rel)) || (!after && underIgnored(now, rel))) continue;
    out.push({ rel, before, after });
  }
  return out;
}

/** A racy file with its stat unchanged: changed only if its bytes are not the copy's. */
function racyChanged(b: ShellBefore, rel: string, before: EntryState, after: EntryState, dirs: CheckedDirs): boolean {
  if (!b.racy.has(rel)) return false;
  const copy = b.copies.get(rel, before);
  const bytes = readAsStated(b.root, rel, after, dirs);
  return copy === undefined || bytes === undefined || !copy.equals(bytes);
}

type Images = { before: FileImage | undefined; after: FileImage | undefined } | { why: string };

function imagesOf(
  b: ShellBefore,
  c: Pending,
  oids: Map<string, string>,
  blobs: Map<string, Buffer>,
  dirs: CheckedDirs,
): Images {
  if ((c.before && !isRegular(c.before)) || (c.after && !isRegular(c.after)))
    return { why: 'a symbolic link (or not a regular file): the journal records regular files' };
  let before: FileImage | undefined;
  if (c.before) {
    if (c.before.size > BigInt(FILE_MAX)) return { why: TOO_LARGE(c.before.size) };
    const oid = oids.get(c.rel);
    const bytes = b.copies.get(c.rel, c.before) ?? blobs.get(oid ?? '');
    if (!bytes) return { why: oid ? 'git could not give its bytes before the command' : NOT_KEPT };
    // Git stores what it converted (end-of-line conversion, a clean filter such as git-lfs's pointer,
    // working-tree-encoding, ident): a blob of another size than the file is not the file's bytes.
    if (bytes.length !== Number(c.before.size)) return { why: CONVERTED };
    before = { bytes, mode: c.before.mode & 0o7777 };
  }
  let after: FileImage | undefined;
  if (c.after) {
    if (c.after.size > BigInt(FILE_MAX)) return { why: TOO_LARGE(c.after.size) };
    const bytes = readAsStated(b.root, c.rel, c.after, dirs);
    if (!bytes) return { why: 'it changed again while the journal read it' };
    after = { bytes, mode: c.after.mode & 0o7777 };
  }
  return { before, after };
}

/** Directories gone with no file recorded under them: nothing of them can come back. */
function emptyDirsRemoved(changes: StateChanges): NotRecorded[] {
  const gone = [...changes.dirs].filter(([d, c]) => d !== '' && c.before && !c.after).map(([d]) => d);
  if (gone.length === 0) return [];
  // A directory that held a file or a directory comes back when what it held is restored. Whatever a
  // gone directory held is gone too: among the changes.
  const holders = new Set<string>();
  const held = [...changes.files].filter(([, c]) => c.before).map(([p]) => p);
  for (const p of [...held, ...gone]) {
    for (let at = p.lastIndexOf('/'); at > 0; at = p.lastIndexOf('/', at - 1)) holders.add(p.slice(0, at));
  }
  return gone
    .filter((d) => !holders.has(d))
    .sort()
    .map((d) => ({ path: `${d}/`, why: 'an empty directory, removed' }));
}

/**
 * Ignored entries and unlisted directories added, removed or changed (such a directory: entries
 * added, removed or renamed in it).
 */
function ignoredChanges(before: Excluded, changes: StateChanges, now: Excluded): NotRecorded[] {
  const out: NotRecorded[] = [];
  for (const rel of [...changes.ignored.keys()].sort()) {
    const { before: a, after: c } = changes.ignored.get(rel) as Change<EntryState>;
    if (a && c && sameState(a, c)) continue;
    if (!a && !c) continue;
    const dir = (((c ?? a)?.mode ?? 0) & 0o170000) === 0o040000 ? '/' : '';
    const why =
      before.opaque.has(rel) || now.opaque.has(rel)
        ? 'a directory the journal could not list (no permission, or replaced while it was walked): what changed in it is not recorded'
        : 'excluded by the ignore files: the journal does not record ignored paths';
    out.push({ path: `${rel}${dir}`, why });
  }
  return out;
}
