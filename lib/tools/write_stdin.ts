/**
 * write_stdin: sends characters to a background job's stdin (a REPL, a prompt) and answers with what
 * the job wrote after them, waiting briefly for it; `chars: ""` only polls. What reaches a program's
 * stdin is judged as running that program's command again: the job's own command is the `run` access
 * the policy decides (an interpreter reading its stdin runs whatever it is sent).
 */
import * as v from 'valibot';
import { fmtInt } from '../core/budget.ts';
import { defineTool, fail, type ToolResult } from '../core/tool.ts';
import { jobCommand } from '../exec/jobs.ts';
import type { WriteContext } from '../lanes/write_context.ts';
import { jobAnswer, unknownJob } from './_job_answer.ts';
import { BASH_ID, waitMs } from './_params.ts';

/** Default wait for the job's answer to the input. */
const DEFAULT_WAIT_MS = 1000;
/** At most this long: the write lane waits with the call. */
const MAX_WAIT_MS = 30_000;

export const writeStdin = defineTool({
  name: 'write_stdin',
  lane: 'write',
  maxOutputBytes: 64 * 1024,
  params: v.strictObject({
    bash_id: BASH_ID,
    chars: v.pipe(
      v.string(),
      v.description('What to send, "\\n" included where a line must end; "" sends nothing and polls'),
    ),
    wait_ms: waitMs(
      MAX_WAIT_MS,
      `Wait up to this many ms for the job's output after the input (default ${DEFAULT_WAIT_MS})`,
    ),
  }),
  description:
    "Sends `chars` to background job `bash_id`'s stdin and answers with its output since the last read, after waiting up to " +
    '`wait_ms` for some. Send "\\n" to end a line; "" only polls. The job must read its stdin (a REPL, a prompt).',
  access: (a) => [{ kind: 'run' as const, command: jobCommand(a.bash_id) ?? a.bash_id }],
  async run(a, ctx: WriteContext): Promise<ToolResult> {
    const jobs = ctx.exec.jobs;
    if (!jobs?.get(a.bash_id)) return unknownJob(a.bash_id, jobs);
    const waitMs = a.wait_ms ?? DEFAULT_WAIT_MS;
    const sent = await jobs.write(a.bash_id, a.chars, waitMs, ctx.signal);
    if ('refused' in sent) return fail('invalid_args', `Nothing was sent: ${sent.refused}.`);
    // Input still queued: the job is not reading, so waiting again for its answer would only add wait_ms.
    const got = await jobs.read(a.bash_id, sent.queued > 0 ? 0 : waitMs, ctx.signal);
    if (!got) return unknownJob(a.bash_id, jobs);
    const answer = jobAnswer(got.job, got.read);
    if (sent.queued === 0) return answer;
    const note = `[${fmtInt(sent.queued)} bytes of the input are not read by the job yet; they stay queued for it]`;
    return { ...answer, content: `${answer.content}\n${note}`, meta: { ...answer.meta, queued: sent.queued } };
  },
});
