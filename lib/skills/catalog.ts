/**
 * The skill catalog: every `SKILL.md` under `<root>/.mewcode/skills/<name>/` and `~/.mewcode/skills/<name>/`,
 * named and described by its frontmatter (`name:`, `description:`). A project skill overrides a user
 * skill of the same name; a file without both fields is skipped and reported. A project skill file
 * the permissions deny for reading is left out unread and unnamed, as a search leaves it out: its
 * description would otherwise reach the model's prompt. Main thread.
 *
 * A skill is read only from a regular `SKILL.md` in a real directory directly under its skills
 * directory: the skills directory is opened where its real path says (for the project's, inside the
 * root) and checked to be exactly there, each skill directory is opened through its descriptor with
 * O_NOFOLLOW and SKILL.md through the skill directory's, so a symlink — planted, or swapped in while
 * the catalog is read — never brings in a file from outside the root.
 */
import { closeSync, constants, type Dirent, fstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fdPath, openExactDir, openIn } from '../core/descriptors.ts';
import { inside } from '../core/paths.ts';
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

const LINKED_DIR = 'a symbolic link; a skill is read only from a real directory under .mewcode/skills';
const LINKED_FILE = 'a symbolic link; a skill is read only from a regular SKILL.md in its own directory';

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
      // The skills directory may be a symlink (a monorepo's shared skills); the project's must lead
      // to a directory inside the root, and what is opened must be exactly where it led.
      const real = realOrUndefined(dir);
      if (level === 'project' && real !== undefined && !inside(real, this.#root)) {
        this.problems.push(`${dir}: it leads to ${real}, outside the root; its skills were not read`);
        continue;
      }
      const opened = real === undefined ? undefined : openExactDir(real);
      if (!opened?.ok) {
        const why = opened?.error.errno;
        if (why === 'MOVED' || why === 'ELOOP' || why === 'ENOTDIR')
          this.problems.push(
            `${dir}: it changed while it was being read (a symbolic link swapped in, or moved); its skills were not read`,
          );
        continue;
      }
      try {
        this.#readSkills(level, dir, opened.value);
      } finally {
        closeSync(opened.value);
      }
    }
  }

  #readSkills(level: Skill['level'], dir: string, dirFd: number): void {
    let entries: Dirent[];
    try {
      entries = readdirSync(fdPath(dirFd), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith('.')) continue;
      if (e.isSymbolicLink()) this.problems.push(`${path.join(dir, e.name)}: ${LINKED_DIR}`);
      if (!e.isDirectory()) continue;
      const file = path.join(dir, e.name, 'SKILL.md');
      if (level === 'project' && fileDenied(this.#denied, path.relative(this.#root, file).split(path.sep).join('/')))
        continue;
      const text = readSkillFile(dirFd, e.name);
      if (!text.ok) {
        if (text.error) this.problems.push(`${text.error === LINKED_DIR ? path.dirname(file) : file}: ${text.error}`);
        continue;
      }
      const parsed = parseSkill(text.value);
      if (!parsed.ok) {
        this.problems.push(`${file}: ${parsed.error}`);
        continue;
      }
      const skill = parsed.value;
      if (!this.#skills.has(skill.name)) this.#skills.set(skill.name, { ...skill, file, level });
    }
  }

  get(name: string): Skill | undefined {
    return this.#skills.get(name);
  }

  list(): Skill[] {
    return [...this.#skills.values()];
  }
}

/**
 * `<name>/SKILL.md` of the skills directory open as `dirFd`, each step through the descriptor before
 * it with O_NOFOLLOW; the error is what to report, '' when there is simply no SKILL.md.
 */
function readSkillFile(dirFd: number, name: string): Result<string, string> {
  const skillDir = openIn(dirFd, name, constants.O_RDONLY | constants.O_DIRECTORY);
  if (!skillDir.ok) return errValue(skillDir.error.errno === 'ELOOP' ? LINKED_DIR : ''); // swapped since the listing
  try {
    // O_NONBLOCK: a FIFO named SKILL.md must not hang the start.
    const file = openIn(skillDir.value, 'SKILL.md', constants.O_RDONLY | constants.O_NONBLOCK);
    if (!file.ok) return errValue(file.error.errno === 'ELOOP' ? LINKED_FILE : '');
    try {
      if (!fstatSync(file.value).isFile()) return errValue('not a regular file');
      return okValue(readFileSync(file.value, 'utf8'));
    } catch (e) {
      return errValue(`cannot be read (${(e as NodeJS.ErrnoException).code ?? e})`);
    } finally {
      closeSync(file.value);
    }
  } finally {
    closeSync(skillDir.value);
  }
}

function realOrUndefined(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

interface ParsedSkill {
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
