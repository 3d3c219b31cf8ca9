/**
 * Directories of one walk root opened in path order, each as the O_NOFOLLOW entry of the one above
 * it: the root is opened once and checked to be exactly its real path, and the descriptors of the
 * current directory's ancestors are kept, so a run of paths in sorted order (a shard's loose files,
 * its directories) opens each directory once and checks no real path but the root's. A directory
 * reached this way is the real one, whatever was swapped for a symlink meanwhile (see walk.ts).
 * A directory two or more levels below the deepest one kept open is opened by its whole path instead
 * and checked to be exactly that path (`openExact`, one open and one readlink, where the chain would
 * open each level: loose files spread over a tree, as an index's candidates are, cost a third as
 * much to reach). Refused, it is reached level by level as before, which says what is in the way.
 */
import path from 'node:path';
import { closeFd, DIR_ONLY, openExact, openExactDir, openIn } from '../core/descriptors.ts';

export class DirChain {
  readonly #root: string;
  /** The root, then each directory of the current path: `rels[i]` is open as `fds[i]`. */
  readonly #rels: string[] = [];
  readonly #fds: number[] = [];

  constructor(root: string) {
    this.#root = root;
  }

  /**
   * The descriptor of `rel` (relative to the root, `/`-separated, '' for the root), or undefined when
   * it cannot be opened as itself. Valid until the next call or `close`.
   */
  open(rel: string): number | undefined {
    // Keep only the ancestors of `rel` (and `rel` itself).
    while (this.#rels.length > 0) {
      const top = this.#rels[this.#rels.length - 1] as string;
      if (top === rel || top === '' || rel.startsWith(`${top}/`)) break;
      this.#pop();
    }
    if (this.#rels.length === 0) {
      const root = openExactDir(this.#root);
      if (!root.ok) return undefined;
      this.#rels.push('');
      this.#fds.push(root.value);
    }
    let at = this.#rels[this.#rels.length - 1] as string;
    const below = at === '' ? rel : rel.slice(at.length + 1);
    if (below.includes('/')) {
      const jumped = openExact(path.join(this.#root, rel), DIR_ONLY);
      if (jumped.ok) {
        this.#rels.push(rel);
        this.#fds.push(jumped.value);
        return jumped.value;
      }
    }
    while (at !== rel) {
      const rest = at === '' ? rel : rel.slice(at.length + 1);
      const name = rest.slice(0, rest.indexOf('/') === -1 ? rest.length : rest.indexOf('/'));
      const next = openIn(this.#fds[this.#fds.length - 1] as number, name, DIR_ONLY);
      if (!next.ok) return undefined;
      at = at === '' ? name : `${at}/${name}`;
      this.#rels.push(at);
      this.#fds.push(next.value);
    }
    return this.#fds[this.#fds.length - 1];
  }

  close(): void {
    while (this.#rels.length > 0) this.#pop();
  }

  #pop(): void {
    this.#rels.pop();
    closeFd(this.#fds.pop() as number);
  }
}
