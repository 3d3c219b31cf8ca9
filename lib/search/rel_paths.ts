/**
 * Root-relative paths as the walk and the index name them: '/'-separated, no leading slash, '' for
 * the root itself.
 */

/** The directory holding `rel`: '' for an entry of the root (and for the root). */
export const dirOf = (rel: string): string => rel.slice(0, Math.max(0, rel.lastIndexOf('/')));

/** The last name of `rel`. */
export const baseOf = (rel: string): string => rel.slice(rel.lastIndexOf('/') + 1);
