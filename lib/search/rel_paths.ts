/**
 * Root-relative paths as the walk and the index name them: '/'-separated, no leading slash, '' for
 * the root itself.
 */

/** The directory holding `rel`: '' for an entry of the root (and for the root). */
export const dirOf = (rel: string): string => rel.slice(0, Math.max(0, rel.lastIndexOf('/')));

/** The last name of `rel`. */
export const baseOf = (rel: string): string => rel.slice(rel.lastIndexOf('/') + 1);

/**
 * The path of `rel` (a walk's or table's relative path: '/'-separated, no '.' or '..' parts; '' for the
 * root) under the absolute `root`: path.join's answer without its normalising pass, which a walk of
 * every directory and a check of every indexed file's state would pay 100k times.
 */
export const underRoot = (root: string, rel: string): string =>
  rel === '' ? root : root.endsWith('/') ? root + rel : `${root}/${rel}`;
