/**
 * What the journal adds to a bash call that changes nothing, on a big tree (docs/undo.md, "Cost").
 *
 *   node --import tsx bench/shell_journal_cost.ts [--files 100000] [--n 15] [--no-git] [--shell-max-files N]
 *
 * One generated tree (bench/fixture.ts: source-like files, an ignored node_modules, nested ignore
 * files), committed to git unless --no-git, and two warm library runtimes on it: journal on and off.
 * Then `bash {command: "true"}` N times on each, interleaved with the order alternating. Prints the
 * median per call on and off and the median of the paired differences, and the parts of the journal's
 * work timed apart (a whole walk of the root's states and git's index: what a runtime's first command
 * does, and every command's without watches), and the first call apart with the heap the runtime then
 * keeps (the root's states, its watches, git's parsed index). With a tree over the runtime's journal.shellMaxFiles
 * (default 200,000), "on" is the cost of finding that out: the walk stops at the limit. Figures only.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { findRepo, readIndex } from '../lib/history/git_repo.ts';
import { treeStates } from '../lib/history/tree_states.ts';
import { createRuntime, type Runtime } from '../lib/runtime/runtime.ts';
import { generateFixture } from './fixture.ts';
import { median } from './oneshot.ts';

const { values } = parseArgs({
  options: {
    files: { type: 'string' },
    n: { type: 'string' },
    'no-git': { type: 'boolean' },
    'shell-max-files': { type: 'string' },
  },
});
const FILES = Number(values.files ?? 100_000);
const N = Number(values.n ?? 15);
/** The runtime's limit on the files compared around a command (its default unless given). */
const shellMax = values['shell-max-files'] ? { shellMaxFiles: Number(values['shell-max-files']) } : {};

const base = mkdtempSync(path.join(tmpdir(), 'mewcode-shell-journal-bench-'));
const root = path.join(base, 'tree');
try {
  const summary = generateFixture(root, { files: FILES, seed: 42, big: false });
  if (!values['no-git']) {
    const git = (...a: string[]) =>
      execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...a], { cwd: root, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'tree');
  }
  console.log(
    `tree: ${summary.files} files, ${(summary.bytes / 1e6).toFixed(0)} MB, ${values['no-git'] ? 'no git' : 'git'}`,
  );
  parts();
  await calls();
} finally {
  rmSync(base, { recursive: true, force: true });
}

/** The journal's steps one by one (a second run of each: warm caches, as in a runtime). */
/** A whole walk of the root's states and a parse of git's index, timed apart (the second round: warm caches). */
function parts(): void {
  const time = (f: () => unknown) => {
    const t = performance.now();
    f();
    return performance.now() - t;
  };
  for (let i = 0; i < 2; i++) {
    const walk = time(() => treeStates(root, { maxFiles: Number.POSITIVE_INFINITY }));
    const repo = findRepo(root);
    const index = time(() => repo && readIndex(repo));
    console.log(`round ${i + 1}: whole walk ${walk.toFixed(0)} ms, git index ${index.toFixed(0)} ms`);
  }
}

function runtime(journal: boolean): Runtime {
  const made = createRuntime({
    root,
    workers: 0,
    index: 'off',
    home: null,
    permissions: { allow: { run: true } },
    journal: journal ? { dir: path.join(base, 'journal'), ...shellMax } : false,
  });
  if (!made.ok) throw new Error(made.error);
  return made.value;
}

/** Heap in use (MiB), after a collection when node runs with --expose-gc. */
function heapMiB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

async function calls(): Promise<void> {
  const rts = { on: runtime(true), off: runtime(false) };
  // The first command of a runtime walks the whole root and opens the watches: timed apart.
  const first: Record<string, number> = {};
  const heapBefore = heapMiB();
  for (const which of ['on', 'off'] as const) {
    const t = performance.now();
    await rts[which].call('bash', { command: 'true' });
    first[which] = performance.now() - t;
  }
  console.log(
    `first call: journal on ${first.on?.toFixed(0)} ms, off ${first.off?.toFixed(0)} ms; heap kept for the root's states ${(heapMiB() - heapBefore).toFixed(1)} MiB${'gc' in globalThis ? '' : ' (run with --expose-gc for an exact figure)'}`,
  );
  const ms: Record<'on' | 'off', number[]> = { on: [], off: [] };
  const diffs: number[] = [];
  for (let k = 0; k < N; k++) {
    const order: ('on' | 'off')[] = k % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
    const took: Record<string, number> = {};
    for (const which of order) {
      const t = performance.now();
      const r = await rts[which].call('bash', { command: 'true' });
      if (r.isError) throw new Error(r.content);
      took[which] = performance.now() - t;
      ms[which].push(took[which]);
    }
    diffs.push((took.on ?? 0) - (took.off ?? 0));
  }
  for (const rt of Object.values(rts)) await rt.close();
  const f = (x: number) => x.toFixed(1);
  console.log(
    `bash "true", ${N} calls each: journal on ${f(median(ms.on))} ms, off ${f(median(ms.off))} ms, paired median on − off ${f(median(diffs))} ms`,
  );
}
