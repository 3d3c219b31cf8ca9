/** Where this checkout is, for tests that start its programs and scripts as child processes. */
import path from 'node:path';

/** The repository's own directory. */
export const REPO = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '../..');

/** `--import` value that loads tsx from this repository, whatever the child's cwd. */
export const TSX = import.meta.resolve('tsx');
