/**
 * The run's reporter: one line per test as node's spec reporter prints them, but a `todo` test (a
 * known gap that runs without failing the suite) reads as todo, never as a red failure block, while a
 * real failure is shown in full (error and location) both where it happens and again at the end. The
 * last line counts the run: `N passed, N failed, N todo`.
 */
import { relative } from 'node:path';
import { inspect } from 'node:util';
import pc from 'picocolors';
import type { FileClock } from './file_clock.ts';

/** The run's counts, read by the entry to set the exit code. */
export interface Tally {
  passed: number;
  failed: number;
  todo: number;
  skipped: number;
}

/** What node:test sends for a finished test (test:pass and test:fail), as far as this reporter reads it. */
interface TestEnd {
  name: string;
  nesting: number;
  file?: string;
  line?: number;
  column?: number;
  todo?: string | boolean;
  skip?: string | boolean;
  details: {
    duration_ms?: number;
    type?: string;
    error?: Error & { code?: string; cause?: unknown; failureType?: string };
  };
}

interface TestEvent {
  type: string;
  data?: unknown;
}

// node's closing diagnostics; this reporter prints its own summary instead.
const NODE_SUMMARY = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$/;

const marked = (reason: string | boolean | undefined) => reason !== undefined && reason !== false;
const reasonOf = (reason: string | boolean | undefined) => (typeof reason === 'string' ? ` # ${reason}` : '');
const ms = (t: TestEnd) => pc.gray(`(${(t.details.duration_ms ?? 0).toFixed(1)}ms)`);

/** The error a test threw, as spec prints it: the test's own error (not node's wrapper), indented. */
function formatError(t: TestEnd, indent: string): string {
  const error = t.details.error;
  if (!error) return '';
  const own = error.code === 'ERR_TEST_FAILURE' ? error.cause : error;
  return `${indent}  ${inspect(own, { breakLength: Number.POSITIVE_INFINITY }).split(/\r?\n/).join(`\n${indent}  `)}\n`;
}

/** The first line of a test's error, for a todo test that still fails as expected. */
function firstLine(t: TestEnd): string {
  const error = t.details.error;
  const own = error?.code === 'ERR_TEST_FAILURE' ? error.cause : error;
  const line = (own instanceof Error ? own.message : inspect(own)).split('\n')[0] ?? '';
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

const where = (t: TestEnd) => (t.file ? `${relative(process.cwd(), t.file)}:${t.line}:${t.column}` : '(no file)');

/** A real failure: name, where it is and the error in full. */
function failureBlock(t: TestEnd, indent: string): string {
  return `${indent}${pc.red(`✖ ${t.name}`)} ${ms(t)}\n${indent}  ${pc.gray(`at ${where(t)}`)}\n${formatError(t, indent)}`;
}

/** Counts one finished test and returns its line (or block). */
function finished(type: string, t: TestEnd, tally: Tally): string {
  const indent = '  '.repeat(t.nesting);
  // The node a whole file gets shows only when the file reports no test of its own: passing, it
  // ran none (which must not count as a pass); failing, it failed outside any test (it did not load).
  if (t.file !== undefined && t.name === t.file) {
    if (type === 'test:pass') return `${indent}${pc.yellow(`- ${t.name}: no tests in this file`)}\n`;
    tally.failed++;
    return failureBlock(t, indent);
  }
  if (t.details.type === 'suite') return suiteLine(type, t, tally, indent);
  if (marked(t.todo)) {
    tally.todo++;
    // Whether a known gap still breaks (fail) or no longer does (pass), it is a todo: yellow, one line.
    const state = type === 'test:fail' ? `still open: ${firstLine(t)}` : 'passes now: drop the todo mark?';
    return `${indent}${pc.yellow(`- ${t.name}`)} ${ms(t)}${pc.yellow(`${reasonOf(t.todo)} (todo, ${state})`)}\n`;
  }
  if (marked(t.skip)) {
    tally.skipped++;
    return `${indent}${pc.gray(`﹣ ${t.name}${reasonOf(t.skip)} (skipped)`)}\n`;
  }
  if (type === 'test:pass') {
    tally.passed++;
    return `${indent}${pc.green('✔')} ${t.name} ${ms(t)}\n`;
  }
  tally.failed++;
  return failureBlock(t, indent);
}

/**
 * A suite's line. One that failed only because tests in it failed is not counted again (they were);
 * one that failed by itself (a hook) is a failure of its own.
 */
function suiteLine(type: string, t: TestEnd, tally: Tally, indent: string): string {
  if (type === 'test:pass') return `${indent}${pc.green('▶')} ${t.name} ${ms(t)}\n`;
  if (t.details.error?.failureType === 'subtestsFailed') return `${indent}${pc.red(`▶ ${t.name}`)} ${ms(t)}\n`;
  tally.failed++;
  return failureBlock(t, indent);
}

/** The closing lines: every real failure again (a long run scrolls them away), then the counts. */
function closing(tally: Tally, failures: TestEnd[], wallMs: number): string {
  const again = failures.length
    ? `\n${pc.red('failing tests:')}\n\n${failures.map((t) => failureBlock(t, '')).join('\n')}`
    : '';
  const skipped = tally.skipped ? `, ${tally.skipped} skipped` : '';
  const counts = `${tally.passed} passed, ${tally.failed} failed, ${tally.todo} todo${skipped}`;
  const colour = tally.failed > 0 || tally.passed === 0 ? pc.red : pc.green;
  return `${again}\nwall time ${(wallMs / 1000).toFixed(1)} s\n${colour(counts)}\n`;
}

/** The reporter for `run(...).compose(...)`; `clock` hears every event, for the per-file timings. */
export function report(tally: Tally, clock: FileClock | null) {
  return async function* reporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
    const start = Date.now();
    const failures: TestEnd[] = [];
    for await (const event of source) {
      clock?.hear(event.type, event.data as TestEnd);
      if (event.type === 'test:pass' || event.type === 'test:fail') {
        const t = event.data as TestEnd;
        const failedBefore = tally.failed;
        yield finished(event.type, t, tally);
        if (tally.failed > failedBefore) failures.push(t);
      } else if (event.type === 'test:stdout' || event.type === 'test:stderr') {
        yield (event.data as { message: string }).message;
      } else if (event.type === 'test:diagnostic') {
        const message = (event.data as { message: string }).message;
        if (!NODE_SUMMARY.test(message)) yield `${pc.blue('ℹ')} ${message}\n`;
      }
    }
    if (clock) yield clock.table();
    yield closing(tally, failures, Date.now() - start);
  };
}
