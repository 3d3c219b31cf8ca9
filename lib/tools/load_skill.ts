/**
 * load_skill: pins a skill's instructions into the following turns' system prompt and answers with
 * one line. A system tool (never filtered out), read-only, run on the main thread where the catalog is.
 * It reads a file, so it declares that read — `.mewcode/skills/<name>/SKILL.md` — and the read rules
 * of every read tool judge it (`deny: ["read_file(.mewcode/skills/x)"]` refuses loading x).
 */
import path from 'node:path';
import * as v from 'valibot';
import { displayPath } from '../core/paths.ts';
import { defineTool, fail, ok } from '../core/tool.ts';
import type { MainContext } from '../lanes/main_context.ts';
import { SKILL_NAME } from '../skills/catalog.ts';

/** The file a project skill named `name` is read from, relative to the root. */
const skillFile = (name: string) => `.mewcode/skills/${name}/SKILL.md`;

export const loadSkill = defineTool({
  name: 'load_skill',
  lane: 'main',
  readsFiles: true,
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
  // A name that is not a skill name is not in the catalog either: nothing to read, and not_found.
  access: (a) => (SKILL_NAME.test(a.name) ? [{ kind: 'read' as const, path: skillFile(a.name) }] : []),
  async run(a, ctx: MainContext) {
    const catalog = ctx.skills;
    const s = catalog.get(a.name);
    if (!s || ctx.paths.length === 0) {
      const names = catalog.list().map((k) => k.name);
      return fail(
        'not_found',
        `There is no skill named ${JSON.stringify(a.name)}. ${names.length ? `Skills: ${names.join(', ')}.` : 'No skills are installed.'}`,
      );
    }
    // The policy judged the read of .mewcode/skills/<name>/SKILL.md: a project skill must be that file,
    // not one in a directory named otherwise (whose path no rule about <name> would have covered).
    if (s.level === 'project' && path.basename(path.dirname(s.file)) !== s.name)
      return fail(
        'invalid_args',
        `The skill "${s.name}" is in ${displayPath(ctx.root, path.dirname(s.file))}/, not in .mewcode/skills/${s.name}/: a skill is loaded from the directory of its name. Rename the directory to ${s.name}.`,
      );
    return ok(`Loaded the skill "${s.name}": its instructions are in the system prompt from the next turn on.`, {
      skill: { name: s.name, body: s.body },
    });
  },
});
