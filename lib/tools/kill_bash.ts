/**
 * kill_bash: stops a background job's whole process tree (SIGTERM, then SIGKILL after a grace, to
 * everything its containment holds) and answers with its last output. Write lane: it changes what runs.
 */
import * as v from 'valibot';
import { defineTool, type ToolResult } from '../core/tool.ts';
import type { WriteContext } from '../lanes/write_context.ts';
import { jobAnswer, unknownJob } from './_job_answer.ts';
import { BASH_ID } from './_params.ts';

export const killBash = defineTool({
  name: 'kill_bash',
  lane: 'write',
  maxOutputBytes: 64 * 1024,
  params: v.strictObject({ bash_id: BASH_ID }),
  description:
    'Stops background job `bash_id` and every process it started (SIGTERM, then SIGKILL after 2 s), and answers with its output ' +
    'since the last bash_output. A job that has already ended is left as it is.',
  access: () => [],
  async run(a, ctx: WriteContext): Promise<ToolResult> {
    const jobs = ctx.exec.jobs;
    if (!jobs || !(await jobs.kill(a.bash_id))) return unknownJob(a.bash_id, jobs);
    const got = await jobs.read(a.bash_id, 0, ctx.signal);
    if (!got) return unknownJob(a.bash_id, jobs);
    return jobAnswer(got.job, got.read);
  },
});
