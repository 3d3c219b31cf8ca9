/** Parameter schemas shared by several tools, so a key is spelled and described once. */
import * as v from 'valibot';

export const FILE_PATH = v.pipe(
  v.string(),
  v.minLength(1, 'file_path is empty'),
  v.description('Path of the file: relative to the root, or absolute inside it'),
);

/** A background job's id, for the tools that act on one (bash_output, kill_bash, write_stdin). */
export const BASH_ID = v.pipe(
  v.string(),
  v.minLength(1),
  v.description('The job id that bash with run_in_background answered with (bash_1, bash_2…)'),
);

/**
 * How long a job tool may wait for the job's output. The bound and the wording stay each tool's own:
 * the tools wait for different things, on lanes that can afford different waits.
 */
export const waitMs = (max: number, description: string) =>
  v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(max), v.description(description)));
