/**
 * Ignore rules as ripgrep applies them: one layer per ignore file per directory; `.mewcodeignore`
 * outranks `.rgignore`, which outranks `.ignore`, then `.gitignore`, then the repository's
 * `info/exclude`, then the global excludes file (`core.excludesFile`), whatever their depths, and
 * within one kind a deeper file overrides a shallower one (git's rule for `.gitignore`). In the tree,
 * `.gitignore` and `.git/info/exclude` apply with or without a git repository (ripgrep's
 * `--no-require-git`); above it, the files ignore_outer.ts finds (parents' ignore files, a worktree's
 * common `info/exclude`, the global excludes file). The walker never enters an ignored directory, so a
 * file under one cannot be re-included — as in git. Runs in workers and inline.
 */
import path from 'node:path';
import type { GitignoreRules } from './gitignore.ts';
import { readRules } from './ignore_files.ts';
import { type GitUser, IGNORE_FILES, IGNORE_KINDS, type IgnoreSource, outsideRules } from './ignore_outer.ts';
import { dirOf } from './rel_paths.ts';

export { type GitUser, IGNORE_FILES, type IgnoreSource } from './ignore_outer.ts';

export interface Layer {
  /** Directory of the rules, relative to the walk root with `/`, '' for the root and its ancestors. */
  dir: string;
  /** For a layer above the walk root: the walk root's path relative to the layer's directory, plus '/'. */
  up: string;
  source: IgnoreSource;
  rules: GitignoreRules;
}

/** The walk root's path below `dir` (an ancestor or the root itself) with a trailing '/', or ''. */
function upFrom(dir: string, root: string): string {
  const rel = path.relative(dir, root);
  return rel === '' ? '' : `${rel.split(path.sep).join('/')}/`;
}

/**
 * Rules for one walk root; layers are loaded once per directory and cached. Ignore files between
 * `base` (the runtime root) and the walk root apply too, as ripgrep applies parents' ignore files,
 * and so do those above `base` that git and ripgrep read (ignore_outer.ts); `user` says where the
 * user's git config is (none read without it).
 */
export class IgnoreRules {
  readonly #root: string;
  readonly #layers = new Map<string, Layer[]>();
  /** `stackFor` of each directory asked about: a directory's stack is its own layers on its parent's. */
  readonly #stacks = new Map<string, Layer[]>();
  /**
   * The ignore files (relative to the root) a directory's listing showed, or that were looked for
   * without one: an index build records where rules can come from, so it need not probe every name in
   * every directory afterwards (index/sweep.ts).
   */
  readonly filesSeen: string[] = [];

  /** The rules of a walk (walk.ts `WalkOptions`). */
  static of(o: { root: string; ignoreBase?: string; gitUser?: GitUser }): IgnoreRules {
    return new IgnoreRules(o.root, o.ignoreBase, o.gitUser);
  }

  constructor(root: string, base: string = root, user?: GitUser) {
    this.#root = root;
    const outer: Layer[] = [];
    const rel = path.relative(base, root);
    const inside = !rel.startsWith('..') && !path.isAbsolute(rel);
    const top = inside ? base : root;
    if (rel !== '' && inside) {
      const parts = rel.split(path.sep);
      // Ancestors in the tree from nearest to farthest, each with the walk root's path below it.
      for (let i = parts.length - 1; i >= 0; i--) {
        const dir = path.join(base, ...parts.slice(0, i));
        for (const source of IGNORE_FILES) {
          const rules = readRules(path.join(dir, source));
          if (rules) outer.push({ dir: '', up: upFrom(dir, root), source, rules });
        }
      }
    }
    for (const f of outsideRules(top, user).files) {
      const rules = readRules(f.file, f);
      if (rules) outer.push({ dir: '', up: upFrom(f.dir, root), source: f.source, rules });
    }
    this.#layers.set('\0outer', outer);
  }

  /**
   * The layers a directory adds (read on first use), highest precedence first. `present` says which
   * names the directory holds, when the caller has just listed it: a missing file is then not even
   * opened (a failed open costs more than the listing).
   */
  layersOf(dir: string, present?: ReadonlySet<string>): Layer[] {
    let layers = this.#layers.get(dir);
    if (layers === undefined) {
      layers = [];
      for (const source of IGNORE_FILES) {
        if (present && !present.has(source)) continue;
        this.filesSeen.push(dir === '' ? source : `${dir}/${source}`);
        const rules = readRules(path.join(this.#root, dir, source));
        if (rules) layers.push({ dir, up: '', source, rules });
      }
      this.#layers.set(dir, layers);
    }
    return layers;
  }

  /**
   * The layers that apply inside `dir`, in the order they are asked: by kind of ignore file first
   * (`.mewcodeignore`, `.rgignore`, `.ignore`, `.gitignore`, `info/exclude`, the global excludes file), and within a kind the deepest
   * directory first. That is ripgrep's precedence: a root `.ignore` with `*.log` hides `sub/keep.log`
   * even when `sub/.gitignore` says `!keep.log`, because no `.gitignore` outranks an `.ignore`.
   */
  stackFor(dir: string, present?: ReadonlySet<string>): Layer[] {
    const known = this.#stacks.get(dir);
    if (known !== undefined) return known;
    const parent = dir === '' ? undefined : this.stackFor(dirOf(dir));
    const own = this.layersOf(dir, present);
    // Most directories hold no ignore file: they share their parent's stack, with nothing allocated.
    let stack: Layer[];
    if (parent !== undefined && own.length === 0) stack = parent;
    else {
      // One bucket per kind; this directory's layers go before its ancestors' (deepest first).
      const byKind: Layer[][] = IGNORE_KINDS.map(() => []);
      const add = (l: Layer) => (byKind[IGNORE_KINDS.indexOf(l.source)] as Layer[]).push(l);
      for (const l of own) add(l);
      for (const l of parent ?? (this.#layers.get('\0outer') as Layer[])) add(l);
      stack = byKind.flat();
    }
    this.#stacks.set(dir, stack);
    return stack;
  }

  /**
   * The first directory between the walk root and `start` (a glob's literal base: `dist/*` starts in
   * `dist`) that is ignored: nothing below it is listed then, as git and fd list nothing there. The
   * walk root itself is what the caller named, and is searched even when ignored, as rg searches a
   * path it is given. Cheap for a shard's directories: their ancestors' layers are read for them anyway.
   */
  ignoredOnTheWay(start: string): { rel: string; source: IgnoreSource } | undefined {
    if (start === '') return undefined;
    const parts = start.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const rel = parts.slice(0, i).join('/');
      const source = IgnoreRules.decide(this.stackFor(parts.slice(0, i - 1).join('/')), rel, true);
      if (source) return { rel, source };
    }
    return undefined;
  }

  /** The first layer in `stack` with a rule matching `rel`, and whether that rule ignores or re-includes. */
  static match(
    stack: readonly Layer[],
    rel: string,
    isDir: boolean,
  ): { verdict: 'ignored' | 'unignored'; source: IgnoreSource } | undefined {
    for (const layer of stack) {
      const sub = layer.up + (layer.dir === '' ? rel : rel.slice(layer.dir.length + 1));
      const verdict = layer.rules.test(sub, isDir);
      if (verdict) return { verdict, source: layer.source };
    }
    return undefined;
  }

  /**
   * Which file ignores `rel` (relative to the walk root, `/`-separated), or undefined when none does.
   * `stack` is `stackFor(dirname(rel))`.
   */
  static decide(stack: readonly Layer[], rel: string, isDir: boolean): IgnoreSource | undefined {
    const m = IgnoreRules.match(stack, rel, isDir);
    return m?.verdict === 'ignored' ? m.source : undefined;
  }
}
