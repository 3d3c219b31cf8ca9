/** Parameter schemas shared by several tools, so a key is spelled and described once. */
import * as v from 'valibot';

export const FILE_PATH = v.pipe(
  v.string(),
  v.minLength(1, 'file_path is empty'),
  v.description('Path of the file: relative to the root, or absolute inside it'),
);
