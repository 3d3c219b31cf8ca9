/**
 * The skill catalog: every `SKILL.md` under `<root>/.mewcode/skills/<name>/` and `~/.mewcode/skills/<name>/`,
 * named and described by its frontmatter (`name:`, `description:`). A project skill overrides a user
 * skill of the same name; a file without both fields is skipped and reported. A project skill file
 * the permissions deny for reading is left out unread and unnamed, as a search leaves it out: its
 * description would otherwise reach the model's prompt. Main thread.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { errValue, okValue, type Result } from '../core/result.ts';
import { type DenySpec, type DenyTest, denyTest, fileDenied } from '../search/denied.ts';

export interface Skill {
  name: string;
  description: string;
  body: string;
  file: string;
  level: 'project' | 'user';
}

export const SKILL_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export class SkillCatalog {
  #skills = new Map<string, Skill>();
  readonly problems: string[] = [];
  readonly #dirs: [Skill['level'], string][];
  readonly #root: string;
  readonly #denied: DenyTest | undefined;

  /** `root` is the root's real path; `denied`, what the permissions deny reading in it. */
  constructor(root: string, home: string | undefined, denied?: DenySpec) {
    this.#root = root;
    this.#denied = denyTest(denied, root, root);
    this.#dirs = [['project', path.join(root, '.mewcode', 'skills')]];
    if (home) this.#dirs.push(['user', path.join(home, '.mewcode', 'skills')]);
    this.reload();
  }

  reload(): void {
    this.#skills = new Map();
    this.problems.length = 0;
    for (const [level, dir] of this.#dirs) {
      let entries: import('node:fs').Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        if (!e.isDirectory() || e.name.startsWith('.')) continue;
        const file = path.join(dir, e.name, 'SKILL.md');
        if (level === 'project' && fileDenied(this.#denied, path.relative(this.#root, file).split(path.sep).join('/')))
          continue;
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch {
          continue;
        }
        const parsed = parseSkill(text);
        if (!parsed.ok) {
          this.problems.push(`${file}: ${parsed.error}`);
          continue;
        }
        const skill = parsed.value;
        if (!this.#skills.has(skill.name)) this.#skills.set(skill.name, { ...skill, file, level });
      }
    }
  }

  get(name: string): Skill | undefined {
    return this.#skills.get(name);
  }

  list(): Skill[] {
    return [...this.#skills.values()];
  }
}

export interface ParsedSkill {
  name: string;
  description: string;
  body: string;
}

/** Frontmatter `---\nname: x\ndescription: y\n---` then the body. */
export function parseSkill(text: string): Result<ParsedSkill, string> {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text.replace(/^\ufeff/, ''));
  if (!m) return errValue('no frontmatter (--- name: … description: … ---) at the top');
  const fields: Record<string, string> = {};
  for (const line of (m[1] ?? '').split(/\r?\n/)) {
    const kv = /^([A-Za-z_-]+):\s*(.*)$/.exec(line);
    if (kv) fields[(kv[1] as string).toLowerCase()] = (kv[2] as string).trim().replace(/^["']|["']$/g, '');
  }
  const name = fields.name ?? '';
  if (!SKILL_NAME.test(name))
    return errValue(`name ${JSON.stringify(name)} must be lowercase letters, digits, - or _ (at most 64)`);
  if (!fields.description) return errValue('description is missing');
  return okValue({ name, description: fields.description, body: (m[2] ?? '').trim() });
}
