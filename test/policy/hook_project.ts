/** The project the folder-trust tests open, from the library and from the CLI. */
import path from 'node:path';
import { tempDir, writeTree } from '../helpers/temp.ts';

/** A project whose settings run a PreToolUse hook that leaves a marker file, on every tool. */
export function hookProject(extra: Record<string, unknown> = {}) {
  const root = tempDir();
  const marker = path.join(tempDir(), 'hook-ran');
  writeTree(root, {
    'a.txt': 'alpha\n',
    '.mewcode/settings.json': JSON.stringify({
      hooks: { PreToolUse: [{ command: `touch ${JSON.stringify(marker)}` }] },
      ...extra,
    }),
  });
  return { root, marker };
}
