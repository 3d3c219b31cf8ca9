/**
 * How a background job's tools (bash_output, kill_bash, write_stdin) answer: the job's state line,
 * then what it wrote since the previous read; and the error for an id that names no job.
 */
import { fmtInt } from '../core/budget.ts';
import { fail, ok, type ToolResult } from '../core/tool.ts';
import type { OutputRead } from '../exec/job_output.ts';
import type { JobInfo, JobTable } from '../exec/jobs.ts';

/** A job's state line and its new output; `kept` is a filter's count line when one applied. */
export function jobAnswer(job: JobInfo, read: OutputRead, filtered?: string): ToolResult {
  const state = job.running ? `running for ${fmtInt(Math.round(job.ms / 1000))} s` : job.state;
  // One line: a command of several lines would make its later lines look like the job's output.
  const command = job.command.replace(/\s+/g, ' ');
  const head = `${job.id} (${command.length > 80 ? `${command.slice(0, 77)}...` : command}): ${state}`;
  const body = read.text === '' ? '(no new output)' : read.text.endsWith('\n') ? read.text.slice(0, -1) : read.text;
  const lost = job.outputFailure ? `\n[${job.outputFailure}: what the job wrote past them is lost]` : '';
  return ok(`${head}${filtered ? `; ${filtered}` : ''}\n${body}${lost}`, {
    bashId: job.id,
    jobState: job.state,
    exitCode: job.exitCode,
    bytes: job.bytes,
    spillPath: job.outputFile,
    ...(job.limitHit ? { limitHit: job.limitHit } : {}),
    ...(read.skipped > 0 ? { skipped: read.skipped } : {}),
  });
}

/** The answer for a job id this runtime does not know. */
export function unknownJob(id: string, jobs: JobTable | undefined): ToolResult {
  if (!jobs)
    return fail('invalid_args', 'This runtime runs no background jobs (a one-shot call ends with its command).');
  const ids = jobs.ids();
  const known = ids.length === 0 ? 'no job was started' : `the jobs are ${ids.slice(-20).join(', ')}`;
  return fail('not_found', `There is no background job "${id}": ${known}.`);
}
