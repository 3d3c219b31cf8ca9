import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { walk } from '../../lib/search/walk.ts';
import { requireTool } from '../helpers/system_tools.ts';
import { tempDir, writeTree } from '../helpers/temp.ts';
import { IGNORE_CASES } from './gitignore_cases.ts';

// Every case of the table, filtered by the walker and by the real git in the same tree: the lists of
// files must be identical (git lists untracked files not excluded; the walker, hidden files included,
// does the same with ignore rules on).
function walked(root: string): string[] {
  const files: string[] = [];
  walk({ root, useIgnore: true, hidden: true, maxDepth: Number.POSITIVE_INFINITY }, [''], {
    file: (e) => void files.push(e.rel),
  });
  return files.sort();
}

for (const c of IGNORE_CASES) {
  test(`gitignore as git: ${c.name}`, () => {
    const gitBin = requireTool('git');
    const root = tempDir();
    try {
      writeTree(root, c.files);
      execFileSync(gitBin, ['init', '-q', '.'], { cwd: root });
      const out = execFileSync(gitBin, ['ls-files', '-o', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' });
      const theirs = out.split('\0').filter(Boolean).sort();
      assert.deepEqual(walked(root), theirs);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}
