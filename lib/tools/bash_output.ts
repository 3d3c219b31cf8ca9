/**
 * bash_output: what a background job wrote since the previous read of it (a cursor per job: nothing is
 * shown twice, nothing is lost — a long stretch is shown by its ends, the middle named in the job's
 * file), with its state; optionally after waiting for output or the end, optionally only the lines
 * matching a regex. Read-only, on the main thread where the jobs are.
 */
import * as v from 'valibot';
import { defineTool, fail, type ToolResult } from '../core/tool.ts';
import type { MainContext } from '../lanes/main_context.ts';
import { jobAnswer, unknownJob } from './_job_answer.ts';
import { filterLines } from './_job_filter.ts';
import { BASH_ID, waitMs } from './_params.ts';

export const MAX_WAIT_MS = 600_000;
const MAX_FILTER_CHARS = 1000;
/** Of a long unread stretch, the filter reads the last this many bytes (the rest is in the job's file). */
const FILTER_SCAN_BYTES = 8 * 1024 * 1024;

export const bashOutput = defineTool({
  name: 'bash_output',
  lane: 'main',
  maxOutputBytes: 64 * 1024,
  params: v.strictObject({
    bash_id: BASH_ID,
    wait_ms: waitMs(
      MAX_WAIT_MS,
      `Wait up to this many ms for new output or the job's end (default 0: answer at once; at most ${MAX_WAIT_MS})`,
    ),
    filter: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1),
        // Compiling is not under the filter's time limit: a pattern of 100,000 alternatives took ~2 s.
        v.maxLength(MAX_FILTER_CHARS),
        v.description(
          `Keep only the lines matching this regex (ripgrep syntax, at most ${MAX_FILTER_CHARS} characters)`,
        ),
      ),
    ),
  }),
  description:
    'Shows what background job `bash_id` wrote since the previous bash_output of it, and its state (running, exited N, killed by…). ' +
    'With `wait_ms`, waits for new output or the job to end first. With `filter`, only the lines matching the regex; the others are ' +
    'consumed too. A long stretch shows its first and last 16 KiB and names the job file holding the middle.',
  access: () => [],
  async run(a, ctx: MainContext): Promise<ToolResult> {
    const jobs = ctx.jobs;
    const filter = a.filter === undefined ? undefined : filterLines(a.filter);
    if (filter && !filter.ok) return fail('invalid_args', `filter is not a valid regex: ${filter.error}`);
    const got = await jobs?.read(a.bash_id, a.wait_ms ?? 0, ctx.signal, filter ? FILTER_SCAN_BYTES : undefined);
    if (!got) return unknownJob(a.bash_id, jobs);
    if (!filter) return jobAnswer(got.job, got.read);
    const kept = filter.value(got.read.text);
    if (!kept.ok) return fail('timeout', kept.error);
    const { lines, of } = kept.value;
    const text = lines.length === 0 ? '' : `${lines.join('\n')}\n`;
    return jobAnswer(got.job, { ...got.read, text }, `${lines.length} of ${of} new lines match the filter`);
  },
});
