/**
 * install_skill: downloads a skill into a staging directory, checks it (SKILL.md with a valid name,
 * an optional sha256 pin of the whole tree), renames it into `.mewcode/skills/<name>` in one step and
 * reloads the catalog. On any failure the staging directory is removed and nothing else changed.
 * Needs network permission for the source's host, and write permission for .mewcode/skills. Write lane.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { fmtInt } from '../core/budget.ts';
import { defineTool, fail, ok } from '../core/tool.ts';
import type { WriteError } from '../files/atomic.ts';
import { makeDirs, openDirFrom, removeTree, renameIn, writeNewFile } from '../files/dir_tree.ts';
import type { WriteContext } from '../lanes/write_context.ts';
import { parseSkill } from '../skills/catalog.ts';
import { type FetchedFile, fetchSkill, SKILL_LIMITS, sourceHost } from '../skills/fetch.ts';
import { netAccessTo } from '../web/addresses.ts';

export const installSkill = defineTool({
  name: 'install_skill',
  lane: 'write',
  openWorld: true,
  params: v.strictObject({
    url: v.pipe(
      v.string(),
      v.minLength(1),
      v.description('A GitHub tree URL (…/tree/<ref>/<dir>), a raw SKILL.md URL, or skills.sh/<org>/<name>/<version>'),
    ),
    sha256: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^[0-9a-f]{64}$/, 'sha256 is 64 lowercase hex digits'),
        v.description('Expected sha256 of the skill tree; install only if it matches'),
      ),
    ),
  }),
  description:
    `Installs a skill from \`url\` into .mewcode/skills/<name> and adds it to the catalog. At most ${SKILL_LIMITS.files} files, ` +
    `${SKILL_LIMITS.fileBytes / 1024 / 1024} MiB a file, ${SKILL_LIMITS.totalBytes / 1024 / 1024} MiB in all, ${SKILL_LIMITS.depth} levels deep, ` +
    `${SKILL_LIMITS.timeoutMs / 1000} s; a SKILL.md with name and description is required. \`sha256\` pins the tree (the answer ` +
    'gives the digest to pin). Needs network permission for the source.',
  access: (a) => [netAccessTo(sourceHost(a.url) ?? a.url), { kind: 'write', path: '.mewcode/skills' }],
  async run(a, ctx: WriteContext) {
    const skillsDir = ctx.paths[0];
    if (skillsDir === undefined) return fail('internal', 'install_skill received no checked path');
    const fetched = await fetchSkill(a.url, ctx.skillSources, ctx.signal);
    if (!fetched.ok)
      return fail('io', `Cannot install the skill from ${a.url}: ${fetched.error}. Nothing was installed.`);
    const files = fetched.value;
    const main = files.find((f) => f.path === 'SKILL.md');
    if (!main)
      return fail(
        'not_found',
        `Cannot install the skill from ${a.url}: it has no SKILL.md at its top. Nothing was installed.`,
      );
    const parsed = parseSkill(main.bytes.toString('utf8'));
    if (!parsed.ok)
      return fail(
        'invalid_args',
        `Cannot install the skill from ${a.url}: SKILL.md ${parsed.error}. Nothing was installed.`,
      );
    const skill = parsed.value;
    const digest = treeDigest(files);
    if (a.sha256 && a.sha256 !== digest) {
      return fail(
        'invalid_args',
        `Cannot install the skill "${skill.name}": its sha256 is ${digest}, not the pinned ${a.sha256}. Nothing was installed.`,
      );
    }
    const written = writeSkill(ctx.root, skillsDir, skill.name, files);
    if (written)
      return fail(written.code, `Cannot install the skill "${skill.name}": ${written.message}. Nothing was installed.`);
    ctx.skills.reload();
    const bytes = files.reduce((n, f) => n + f.bytes.length, 0);
    return ok(
      `Installed the skill "${skill.name}" (${files.length} file${files.length === 1 ? '' : 's'}, ${fmtInt(bytes)} bytes) into .mewcode/skills/${skill.name}; sha256 ${digest}. Load it with load_skill.`,
      { name: skill.name, sha256: digest },
    );
  },
});

/**
 * Writes the skill into `<skillsDir>/.staging-*` and renames it into place, an older version moved
 * aside first and removed after. Everything goes through descriptors from the root (dir_tree.ts):
 * `.mewcode/skills` or any directory of the staging tree swapped for a symlink during the download
 * stops the install instead of putting the skill, or deleting anything, outside the root.
 */
function writeSkill(
  root: string,
  skillsDir: string,
  name: string,
  files: readonly FetchedFile[],
): WriteError | undefined {
  const opened = openDirFrom(root, skillsDir, true);
  if (!opened.ok) return opened.error;
  const skills = opened.value;
  const suffix = randomBytes(6).toString('hex');
  const staging = `.staging-${suffix}`;
  const old = `.old-${suffix}`;
  try {
    for (const f of files) {
      const parts = f.path.split('/'); // checked by fetch.ts: plain names, no '..'
      const file = parts.pop() as string;
      const dir = makeDirs(skills, [staging, ...parts].join('/'));
      if (!dir.ok) {
        removeTree(skills.fd, staging);
        return dir.error;
      }
      try {
        writeNewFile(dir.value, file, f.bytes);
      } finally {
        dir.value.close();
      }
    }
    // Into place in one rename; an older version is moved aside first and removed after.
    let replaced = false;
    try {
      renameIn(skills, name, old);
      replaced = true;
    } catch {
      // not installed before
    }
    renameIn(skills, staging, name);
    if (replaced) removeTree(skills.fd, old);
    return undefined;
  } catch (e) {
    removeTree(skills.fd, staging);
    return { code: 'io', message: (e as Error).message };
  } finally {
    skills.close();
  }
}

/** sha256 over the sorted list of (path, sha256 of content): the digest a user pins. */
export function treeDigest(files: readonly { path: string; bytes: Buffer }[]): string {
  const h = createHash('sha256');
  for (const f of [...files].sort((x, y) => (x.path < y.path ? -1 : 1)))
    h.update(`${f.path}\0${createHash('sha256').update(f.bytes).digest('hex')}\n`);
  return h.digest('hex');
}
