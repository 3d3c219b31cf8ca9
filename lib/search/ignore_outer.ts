/**
 * The ignore files that apply to a tree from outside it, as git and ripgrep read them, for a root
 * `base` (the runtime root: a monorepo's package, a linked worktree, a directory in a repository):
 *
 * - `.mewcodeignore`, `.rgignore` and `.ignore` of every directory above `base`, up to `/` (ripgrep
 *   reads its own ignore files in every parent directory, inside a repository or not);
 * - `.gitignore` of the directories above `base` up to the top of the git repository `base` is in
 *   (the nearest directory at or above it holding `.git`; git and rg read none above that top, and
 *   none at all outside a repository);
 * - that repository's `info/exclude`, from its common git directory: a linked worktree's `.git` is a
 *   file (`gitdir: …`) naming a directory whose `commondir` names the main one, where git reads it;
 * - the global excludes file: `core.excludesFile` of the system and user git config
 *   (`/etc/gitconfig`, `$XDG_CONFIG_HOME/git/config`, `~/.gitconfig`, the last one setting it wins),
 *   by default `$XDG_CONFIG_HOME/git/ignore`, else `~/.config/git/ignore` — only when the runtime has
 *   a home (`GitUser`).
 *
 * What a tree holds never makes MewCode read a file git would not: a `.git` file or symlink and
 * `commondir` are followed only to directories git takes for git directories (`HEAD`, `objects/`, `refs/`), and
 * from those only `info/exclude` is read; `core.excludesFile` is not taken from the repository's own
 * config, so a tree cannot name an arbitrary file to be read as patterns. Files above `base` are read
 * only when this process's user or root owns them, and a `.git` above `base` that someone else owns
 * is no repository (git refuses it as "dubious ownership"). Everything here is read, never written.
 * `inputs` lists every path whose change changes these rules: the index checks their states, since no
 * watch sees them (index/sweep.ts).
 */
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { lstatIfAny, statIfAny } from '../core/lstat_if_any.ts';
import { RACY_MS } from './dircache.ts';
import { mine, withFile } from './ignore_files.ts';

/** Where the user's git configuration lives; absent, none is read (a runtime with no home). */
export interface GitUser {
  home: string;
  /** `$XDG_CONFIG_HOME`; absent, `<home>/.config`. */
  xdgConfigHome?: string;
}

/** Ignore files named in every directory, by precedence, highest first (ripgrep's order). */
export const IGNORE_FILES = ['.mewcodeignore', '.rgignore', '.ignore', '.gitignore'] as const;
/** Every kind of rule file, by precedence, highest first: within a kind the deepest file wins. */
export const IGNORE_KINDS = [...IGNORE_FILES, '.git/info/exclude', 'core.excludesFile'] as const;
export type IgnoreSource = (typeof IGNORE_KINDS)[number];

export interface OuterFile {
  file: string;
  /** The directory its patterns are relative to (git: a `.gitignore`'s own, the repository's top). */
  dir: string;
  source: IgnoreSource;
  follow?: boolean;
  mineOnly?: boolean;
}

interface Repo {
  top: string;
  /** The real path of the repository's common git directory. */
  common: string;
  /** The files that say where it is: `.git` when it is a file, and its git directory's `commondir`. */
  pointers: string[];
}

export interface Outside {
  /** Nearest directory first, then `info/exclude`, then the global excludes file. */
  files: OuterFile[];
  /** Every path whose creation, change or removal may change `files` or what they say. */
  inputs: string[];
}

/** The directories above `dir`, nearest first. */
function ancestors(dir: string): string[] {
  const out: string[] = [];
  for (let d = dir; path.dirname(d) !== d; ) {
    d = path.dirname(d);
    out.push(d);
  }
  return out;
}

export function outsideRules(base: string, user?: GitUser): Outside {
  const above = ancestors(base);
  const repo = findRepo(base);
  const files: OuterFile[] = [];
  const inputs: string[] = [path.join(base, '.git')];
  for (const dir of above) {
    const inRepo = repo !== undefined && (dir === repo.top || dir.startsWith(repo.top === '/' ? '/' : `${repo.top}/`));
    for (const name of IGNORE_FILES) {
      inputs.push(path.join(dir, name));
      if (name === '.gitignore' && !inRepo) continue;
      files.push({ file: path.join(dir, name), dir, source: name, mineOnly: true });
    }
    inputs.push(path.join(dir, '.git'));
  }
  if (repo) {
    const exclude = path.join(repo.common, 'info', 'exclude');
    files.push({ file: exclude, dir: repo.top, source: '.git/info/exclude', follow: true });
    inputs.push(...repo.pointers, exclude);
  }
  if (user) {
    const configs = configFiles(user);
    const global = globalExcludes(user, configs, repo?.top ?? base);
    files.push({ file: global, dir: repo?.top ?? base, source: 'core.excludesFile', follow: true });
    inputs.push(...configs, global);
  }
  return { files, inputs };
}

/**
 * The repository `base` is in: the nearest directory at or above it holding a `.git` that leads to a
 * git directory. A `.git` above `base` owned by another user ends the search (git refuses it).
 */
function findRepo(base: string): Repo | undefined {
  for (const dir of [base, ...ancestors(base)]) {
    const dotGit = path.join(dir, '.git');
    const st = lstatIfAny(dotGit);
    if (!st || !(st.isDirectory() || st.isFile() || st.isSymbolicLink())) continue;
    if (dir !== base && !mine(st)) return undefined;
    const repo = st.isDirectory() ? gitDirRepo(dir) : st.isFile() ? gitFileRepo(dir, dotGit) : linkedRepo(dir, dotGit);
    if (repo) return repo;
  }
  return undefined;
}

/** A `.git` directory is one (as for rg, even one `git init` did not fill: its `info/exclude` applies). */
const gitDirRepo = (top: string): Repo => ({ top, common: path.join(top, '.git'), pointers: [] });

/** A `.git` file (a linked worktree, a submodule): `gitdir: <dir>`, and that directory's `commondir`. */
function gitFileRepo(top: string, dotGit: string): Repo | undefined {
  const named = /^gitdir: *(.+?)\s*$/m.exec(smallText(dotGit, false) ?? '')?.[1];
  const gitDir = named === undefined ? undefined : realIfAny(path.resolve(top, named));
  if (!gitDir || !isFile(path.join(gitDir, 'HEAD'))) return undefined;
  const pointer = path.join(gitDir, 'commondir');
  const commonNamed = smallText(pointer, true)?.trim();
  const common = commonNamed ? realIfAny(path.resolve(gitDir, commonNamed)) : gitDir;
  return common && isGitDir(common) ? { top, common, pointers: [dotGit, pointer] } : undefined;
}

/** A `.git` symlink, followed as git follows it, but only to a git directory. */
function linkedRepo(top: string, dotGit: string): Repo | undefined {
  const common = realIfAny(dotGit);
  return common && isGitDir(common) ? { top, common, pointers: [dotGit] } : undefined;
}

/** git's `is_git_directory`: `HEAD`, `objects/` and `refs/`. */
const isGitDir = (dir: string) =>
  isFile(path.join(dir, 'HEAD')) && isDir(path.join(dir, 'objects')) && isDir(path.join(dir, 'refs'));

const isFile = (p: string) => statIfAny(p)?.isFile() === true;
const isDir = (p: string) => statIfAny(p)?.isDirectory() === true;

function realIfAny(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

/** The system and user git config files, in the order git reads them (a later one wins). */
function configFiles(user: GitUser): string[] {
  return [
    '/etc/gitconfig',
    path.join(user.xdgConfigHome ?? path.join(user.home, '.config'), 'git', 'config'),
    path.join(user.home, '.gitconfig'),
  ];
}

/** The global excludes file: the last `core.excludesFile` set, or git's default. */
function globalExcludes(user: GitUser, configs: readonly string[], relativeTo: string): string {
  let named: string | undefined;
  for (const file of configs) named = excludesFileIn(smallText(file, true) ?? '') ?? named;
  if (named === undefined || named === '')
    return path.join(user.xdgConfigHome ?? path.join(user.home, '.config'), 'git', 'ignore');
  if (named === '~' || named.startsWith('~/')) return path.join(user.home, named.slice(1));
  return path.resolve(relativeTo, named);
}

/** The value of `core.excludesFile` in a git config file's text, the last one set. */
export function excludesFileIn(text: string): string | undefined {
  let section = '';
  let value: string | undefined;
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    const header = /^\[([^\]"]*?)\s*(?:"(?:[^"\\]|\\.)*")?\s*\](.*)$/.exec(line);
    if (header) {
      // `[core "x"]` is a subsection, not `core`; section names are case-insensitive.
      section = /"/.test(line.slice(0, line.indexOf(']'))) ? '' : (header[1] as string).trim().toLowerCase();
      line = (header[2] as string).trim();
    }
    const kv = /^excludesfile\s*(?:=(.*))?$/i.exec(line);
    if (section === 'core' && kv) value = configValue(kv[1] ?? '');
  }
  return value;
}

/** A config value: quotes removed, escapes decoded, a comment (`#`, `;` outside quotes) dropped. */
function configValue(raw: string): string {
  let out = '';
  let quoted = false;
  let pendingSpace = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '#' || c === ';')) break;
    else if (c === '\\') {
      const n = raw[++i];
      out += pendingSpace + (n === 'n' ? '\n' : n === 't' ? '\t' : (n ?? ''));
      pendingSpace = '';
    } else if (!quoted && (c === ' ' || c === '\t')) pendingSpace += out === '' ? '' : c;
    else {
      out += pendingSpace + c;
      pendingSpace = '';
    }
  }
  return out;
}

interface Known {
  ino: number;
  dev: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  text: string;
}
const texts = new Map<string, Known>();

/** The text of a small file (a git config, a `.git` file, `commondir`), kept while unchanged. */
function smallText(file: string, follow: boolean): string | undefined {
  const st = follow ? statIfAny(file) : lstatIfAny(file);
  if (!st?.isFile()) return undefined;
  const key = `${follow ? 'f' : '-'}${file}`;
  const hit = texts.get(key);
  if (hit && hit.ino === st.ino && hit.dev === st.dev && hit.size === st.size && hit.mtimeMs === st.mtimeMs)
    if (hit.ctimeMs === st.ctimeMs) return hit.text;
  const read = withFile(file, { follow }, (fd, at) => ({ at, text: readFileSync(fd, 'utf8') }));
  if (!read) return undefined;
  const { ino, dev, size, mtimeMs, ctimeMs } = read.at;
  if (Date.now() - mtimeMs > RACY_MS && Date.now() - ctimeMs > RACY_MS) {
    if (texts.size > 1000) texts.clear();
    texts.set(key, { ino, dev, size, mtimeMs, ctimeMs, text: read.text });
  }
  return read.text;
}
