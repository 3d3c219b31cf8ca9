/**
 * The `agent` tool: runs a sub-agent to completion on a prompt, with a filtered tool set, and answers
 * with its final text. The agent loop runs it itself (a sub-agent's writes go through the write lane,
 * which the parent call must not hold), so it is not in the runtime's registry.
 */
import * as v from 'valibot';
import { defineTool, fail } from '../core/tool.ts';

const names = (what: string) => v.optional(v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.description(what)));

export const agentTool = defineTool({
  name: 'agent',
  lane: 'write',
  params: v.strictObject({
    prompt: v.pipe(
      v.string(),
      v.minLength(1, 'prompt is empty'),
      v.description('The complete task for the sub-agent: it sees nothing of this conversation'),
    ),
    description: v.optional(v.pipe(v.string(), v.maxLength(200), v.description('A few words for the activity log'))),
    allowed_tools: names('Only these tools (default: all but agent)'),
    disallowed_tools: names('Never these tools'),
    read_only: v.optional(
      v.pipe(
        v.boolean(),
        v.description('A read-only agent: only tools that read, never ones that change (default false)'),
      ),
    ),
  }),
  description:
    'Starts a sub-agent on `prompt` — a complete, self-contained task — and returns its final answer. It works in the same ' +
    'project with the same permissions but sees none of this conversation. `allowed_tools` and `disallowed_tools` narrow its ' +
    'tools; `read_only` limits it to the tools that only read. It runs to completion before this call answers, and cannot start agents itself.',
  access: () => [],
  async run() {
    return fail('invalid_args', 'agent runs only inside an agent run (the loop runs it itself).');
  },
});
