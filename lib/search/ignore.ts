/**
 * Ignore rules as git applies them: one layer per ignore file per directory; a deeper layer overrides
 * a shallower one, and within a directory `.mewcodeignore` overrides `.ignore`, which overrides
 * `.gitignore` (ripgrep's order, plus ours on top). `.git/info/exclude` at the root is the lowest
 * layer. `.gitignore` applies with or without a git repository (ripgrep's `--no-require-git`); the
 * user's global excludes file is not read. The walker never enters an ignored directory, so a file
 * under one cannot be re-included — as in git. Runs in workers and inline.
 */
import path from 'node:path';
import type { GitignoreRules } from './gitignore.ts';
import { readRules } from './ignore_files.ts';

/** Ignore files by precedence, highest first. */
export const IGNORE_FILES = ['.mewcodeignore', '.ignore', '.gitignore'] as const;
export type IgnoreSource = (typeof IGNORE_FILES)[number] | '.git/info/exclude';

export interface Layer {
  /** Directory of the rules, relative to the walk root with `/`, '' for the root and its ancestors. */
  dir: string;
  /** For a layer above the walk root: the walk root's path relative to the layer's directory, plus '/'. */
  up: string;
  source: IgnoreSource;
  rules: GitignoreRules;
}

/**
 * Rules for one walk root; layers are loaded once per directory and cached. Ignore files between
 * `base` (the runtime root) and the walk root apply too, as ripgrep applies parents' ignore files.
 */
export class IgnoreRules {
  readonly #root: string;
  readonly #layers = new Map<string, Layer[]>();

  constructor(root: string, base: string = root) {
    this.#root = root;
    const outer: Layer[] = [];
    const rel = path.relative(base, root);
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) {
      const parts = rel.split(path.sep);
      // Ancestors from nearest to farthest, each with the walk root's path below it.
      for (let i = parts.length - 1; i >= 0; i--) {
        const dir = path.join(base, ...parts.slice(0, i));
        const up = `${parts.slice(i).join('/')}/`;
        for (const source of IGNORE_FILES) {
          const rules = readRules(path.join(dir, source));
          if (rules) outer.push({ dir: '', up, source, rules });
        }
      }
    }
    const top = rel === '' || rel.startsWith('..') ? root : base;
    const exclude = readRules(path.join(top, '.git', 'info', 'exclude'));
    if (exclude)
      outer.push({
        dir: '',
        up: top === root ? '' : `${rel.split(path.sep).join('/')}/`,
        source: '.git/info/exclude',
        rules: exclude,
      });
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
        const rules = readRules(path.join(this.#root, dir, source));
        if (rules) layers.push({ dir, up: '', source, rules });
      }
      this.#layers.set(dir, layers);
    }
    return layers;
  }

  /** The layers that apply inside `dir`, deepest and highest precedence first. */
  stackFor(dir: string, present?: ReadonlySet<string>): Layer[] {
    const dirs = [''];
    if (dir !== '') {
      const parts = dir.split('/');
      for (let i = 1; i <= parts.length; i++) dirs.push(parts.slice(0, i).join('/'));
    }
    const stack: Layer[] = [];
    for (let i = dirs.length - 1; i >= 0; i--)
      stack.push(...this.layersOf(dirs[i] ?? '', i === dirs.length - 1 ? present : undefined));
    stack.push(...(this.#layers.get('\0outer') ?? []));
    return stack;
  }

  /**
   * Which file ignores `rel` (relative to the walk root, `/`-separated), or undefined when none does.
   * `stack` is `stackFor(dirname(rel))`.
   */
  static decide(stack: readonly Layer[], rel: string, isDir: boolean): IgnoreSource | undefined {
    for (const layer of stack) {
      const sub = layer.up + (layer.dir === '' ? rel : rel.slice(layer.dir.length + 1));
      const verdict = layer.rules.test(sub, isDir);
      if (verdict === 'ignored') return layer.source;
      if (verdict === 'unignored') return undefined;
    }
    return undefined;
  }
}
