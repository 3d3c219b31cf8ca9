/** The shell journal tests' runtime: a root with the files given, commands and writes granted, its own journal. */
import path from 'node:path';
import type { ToolResult } from '../../lib/core/tool.ts';
import type { NotRecorded } from '../../lib/history/shell_after.ts';
import { commitClean, git } from '../helpers/git_repo.ts';
import { runtimeAt } from '../helpers/runtime.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';

/** `git`: commit the files (their stat clean in git's eyes); a function also configures the repository first. */
export async function shellSetup(
  files: Record<string, string | Uint8Array>,
  o: { git?: boolean | ((root: string) => void) } = {},
) {
  const root = tempDir();
  if (typeof o.git === 'function') {
    git(root, 'init', '-q');
    o.git(root);
  }
  writeTree(root, files);
  if (o.git) await commitClean(root, Object.keys(files));
  const rt = runtimeAt(root, {
    workers: 0,
    permissions: { allow: { write: true, run: true } },
    journal: { dir: tempDir() },
  });
  return { root, rt, at: (p: string) => path.join(root, p) };
}

export const notRecorded = (r: ToolResult): NotRecorded[] => r.meta?.notRecorded ?? [];
