/**
 * The git repository a root is in, as the shell journal uses it: where its index is (read and
 * parsed again only when the index file changed) and its blobs, fetched with one `git cat-file
 * --batch` per command that needs them. A root in no repository, a SHA-256 repository, or git
 * missing or refusing (a repository owned by another user) all come to "no blobs": the files are
 * then copied before the command or named as not recorded. Main thread.
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { lstatIfAny } from '../core/lstat_if_any.ts';
import { type GitIndexEntry, parseGitIndex } from './git_index.ts';

export interface GitRepo {
  /** The working tree's top (the directory holding `.git`). */
  top: string;
  /** The git directory (`.git`, or a linked worktree's directory). */
  gitDir: string;
}

export interface GitIndexState {
  entries: Map<string, GitIndexEntry>;
  /** The index file's mtime: entries not older than it are racily clean. */
  mtimeNs: bigint;
}

/** The repository whose working tree holds `root` (walking up), if any git can read. */
export function findRepo(root: string): GitRepo | undefined {
  for (let dir = root; ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    const st = lstatIfAny(dotGit);
    if (st?.isDirectory()) return sha1Repo({ top: dir, gitDir: dotGit });
    if (st?.isFile()) {
      const m = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'));
      return m?.[1] ? sha1Repo({ top: dir, gitDir: path.resolve(dir, m[1].trim()) }) : undefined;
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * Whether git may have stored something other than the file's bytes under the same size: a clean
 * filter (git-lfs, or any `filter.<driver>.clean`) named in the repository's or the user's git
 * configuration. (End-of-line and encoding conversions change the size, which the blob's is checked
 * against.) Such a repository's blobs are not used as before-images: its files are copied instead.
 */
export function mayFilter(repo: GitRepo): boolean {
  const home = process.env.HOME ?? '';
  const xdg = process.env.XDG_CONFIG_HOME || path.join(home, '.config');
  let common = repo.gitDir;
  try {
    common = path.resolve(repo.gitDir, readFileSync(path.join(repo.gitDir, 'commondir'), 'utf8').trim());
  } catch {
    // not a linked worktree: its git directory is the common one
  }
  const files = [path.join(repo.gitDir, 'config'), path.join(common, 'config'), path.join(home, '.gitconfig')];
  files.push(path.join(xdg, 'git', 'config'), '/etc/gitconfig');
  return files.some((f) => {
    try {
      return /^\s*\[\s*filter\b/im.test(readFileSync(f, 'utf8'));
    } catch {
      return false;
    }
  });
}

/** SHA-256 repositories store 32-byte ids in their index: not read here. */
function sha1Repo(repo: GitRepo): GitRepo | undefined {
  try {
    const config = readFileSync(path.join(repo.gitDir, 'config'), 'utf8');
    if (/^\s*objectformat\s*=\s*sha256/im.test(config)) return undefined;
  } catch {
    // no config of its own (a linked worktree): the format is the main repository's; the index says
  }
  return repo;
}

const cache = new Map<string, { key: string; state: GitIndexState | undefined }>();

/** The repository's index, parsed once per version of the file. */
export function readIndex(repo: GitRepo): GitIndexState | undefined {
  const file = path.join(repo.gitDir, 'index');
  let key: string;
  let mtimeNs: bigint;
  try {
    const st = statSync(file, { bigint: true });
    mtimeNs = st.mtimeNs;
    key = `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return undefined;
  }
  const seen = cache.get(file);
  if (seen?.key === key) return seen.state;
  let state: GitIndexState | undefined;
  try {
    const entries = parseGitIndex(readFileSync(file));
    state = entries ? { entries, mtimeNs } : undefined;
  } catch {
    state = undefined;
  }
  cache.set(file, { key, state });
  return state;
}

/** The environment git runs in: the user's, without variables that would point it at another repository. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  return { ...env, GIT_CONFIG_NOSYSTEM: '1', GIT_NO_LAZY_FETCH: '1', LC_ALL: 'C' };
}

/**
 * No transport at all: a blob missing from a partial clone would otherwise be fetched from its
 * promisor remote, and the repository's config chooses how (an `ext::` URL or core.sshCommand runs any
 * program). Command-line settings win over the repository's; GIT_NO_LAZY_FETCH is honoured from git 2.44.
 */
const NO_FETCH = ['allow', 'ext.allow', 'file.allow', 'ssh.allow', 'git.allow', 'http.allow', 'https.allow'].flatMap(
  (k) => ['-c', `protocol.${k}=never`],
);

/** The blobs' bytes by id; ids git does not have (or a git that failed) are absent. */
export function fetchBlobs(repo: GitRepo, oids: readonly string[]): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  if (oids.length === 0) return Promise.resolve(out);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('git', [...NO_FETCH, '--git-dir', repo.gitDir, 'cat-file', '--batch'], {
        env: gitEnv(),
        stdio: ['pipe', 'pipe', 'ignore'],
      });
    } catch {
      resolve(out);
      return;
    }
    child.on('error', () => resolve(out));
    child.stdout?.on('data', (c: Buffer) => chunks.push(c));
    child.on('close', () => resolve(parseBatch(Buffer.concat(chunks), out)));
    child.stdin?.on('error', () => {}); // git gone early: its close answers
    child.stdin?.end(`${oids.join('\n')}\n`);
  });
}

/** `<oid> blob <size>\n<bytes>\n` per id, or `<oid> missing\n`. */
function parseBatch(buf: Buffer, out: Map<string, Buffer>): Map<string, Buffer> {
  let at = 0;
  while (at < buf.length) {
    const eol = buf.indexOf(10, at);
    if (eol === -1) break;
    const [oid, type, size] = buf.toString('latin1', at, eol).split(' ');
    at = eol + 1;
    if (type === 'missing' || size === undefined || oid === undefined) continue;
    const n = Number(size);
    if (!Number.isSafeInteger(n) || at + n > buf.length) break;
    if (type === 'blob') out.set(oid, Buffer.from(buf.subarray(at, at + n)));
    at += n + 1;
  }
  return out;
}
