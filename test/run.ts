/**
 * Test entry for Node 20, whose `node --test` takes no glob patterns and passes with zero tests: find
 * the files ourselves, fail when none match or none run.
 *
 * Usage: node --import tsx test/run.ts [--quick] [--timings[=N]] [filter]
 *
 * Two tiers. `*.test.ts` files are the quick tier: the tests a change most likely breaks (the tools,
 * the policy, the search and its syntax, the agent loop, the CLI's own words), about a minute on two
 * idle cores. `*.slow.test.ts` files are the slow tier, chosen by measurement (`--timings`): attack
 * races and floods (1,000 swaps, SIGKILL mid-write, a 1 GB output), index attacks on aged trees,
 * parity runs against rg on big fixtures, deadlines and process survivors, end-to-end CLI runs
 * against fake servers, install and bundle. Both run by default — `npm test` and CI run everything.
 * `--quick` or `MEWCODE_QUICK=1` (`npm run test:quick`) leaves the slow tier out for a fast local
 * loop. `--timings[=N]` ends the run with the N (default 15) slowest files.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { run } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeDistCurrent } from './runner/current_dist.ts';
import { FileClock } from './runner/file_clock.ts';
import { report, type Tally } from './runner/report.ts';

/** Per test file: only a safety net so a hung test fails the run instead of stalling it forever. */
const FILE_TIMEOUT_MS = 15 * 60_000;
/** Test files at a time (MEWCODE_TEST_FILES overrides). */
const FILES_AT_ONCE = Number(process.env.MEWCODE_TEST_FILES) || 2;

const dir = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick') || process.env.MEWCODE_QUICK === '1';
const timings = args.find((a) => a.startsWith('--timings'));
const only = args.find((a) => !a.startsWith('--')) ?? '';
const isSlow = (f: string) => f.endsWith('.slow.test.ts');
const matched = (readdirSync(dir, { recursive: true }) as string[])
  .filter((f) => f.endsWith('.test.ts') && f.includes(only))
  .sort();
const left = quick ? matched.filter(isSlow) : [];
// The slow files start first: with two files at a time, the long ones then overlap the many short ones.
const files = [...matched.filter(isSlow), ...matched.filter((f) => !isSlow(f))]
  .filter((f) => !left.includes(f))
  .map((f) => path.join(dir, f));
if (left.length > 0)
  console.error(
    `quick run: leaving out the ${left.length} files of the slow tier (*.slow.test.ts); npm test runs everything`,
  );
if (files.length === 0) {
  console.error(`no test files matched "${only}"${left.length ? ' outside the slow tier' : ''}`);
  process.exit(1);
}
makeDistCurrent();
// Search indexes that runtimes under test build go to a temporary cache, never the user's.
const cache = mkdtempSync(path.join(tmpdir(), 'mewcode-test-cache-'));
process.env.XDG_CACHE_HOME = cache;
// So is the undo journal of every write they make (lib/history/journal_dir.ts).
process.env.XDG_DATA_HOME = path.join(cache, 'data');
const tally: Tally = { passed: 0, failed: 0, todo: 0, skipped: 0 };
const clock = timings ? new FileClock(Number(timings.split('=')[1] ?? 15)) : null;
run({ files, concurrency: FILES_AT_ONCE, timeout: FILE_TIMEOUT_MS })
  .compose(report(tally, clock))
  .on('end', () => {
    rmSync(cache, { recursive: true, force: true });
    // A todo test is a known gap, reported but not a failure (node --test counts it so too).
    if (tally.failed > 0) process.exitCode = 1;
    if (tally.passed === 0) {
      console.error('no tests ran');
      process.exitCode = 1;
    }
  })
  .pipe(process.stdout);
