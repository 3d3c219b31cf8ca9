/**
 * load_skill: pins a skill's instructions into the following turns' system prompt and answers with
 * one line. A system tool (never filtered out), read-only, run on the main thread where the catalog is.
 */
import * as v from 'valibot';
import { defineTool, fail, ok } from '../core/tool.ts';
import type { MainContext } from './context.ts';

export const loadSkill = defineTool({
  name: 'load_skill',
  lane: 'main',
  system: true,
  params: v.strictObject({
    name: v.pipe(
      v.string(),
      v.minLength(1),
      v.description('Name of the skill, as listed under Skills in the system prompt'),
    ),
  }),
  description:
    'Loads the skill `name` from the catalog in the system prompt: its instructions are added to the system prompt for the rest ' +
    'of the run. Load a skill when its description fits the task, before starting the work it covers.',
  access: () => [],
  async run(a, ctx: MainContext) {
    const catalog = ctx.skills;
    const s = catalog.get(a.name);
    if (!s) {
      const names = catalog.list().map((k) => k.name);
      return fail(
        'not_found',
        `There is no skill named ${JSON.stringify(a.name)}. ${names.length ? `Skills: ${names.join(', ')}.` : 'No skills are installed.'}`,
      );
    }
    return ok(`Loaded the skill "${s.name}": its instructions are in the system prompt from the next turn on.`, {
      skill: { name: s.name, body: s.body },
    });
  },
});
