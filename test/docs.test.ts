/**
 * The documentation against the code it describes: every relative link lands on a file of this
 * repository (and a heading there, when it names one), every flag of the CLI's own table is in
 * docs/cli.md, every tool and each of its parameters has a place in docs/tools.md. Names are read
 * from lib/, never listed here by hand, so a flag or parameter added without its documentation fails
 * with its name.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { agentTool } from '../lib/agent/agent_tool.ts';
import { COMMAND_SHORTS, COMMANDS, FLAGS, GLOBAL_SHORTS } from '../lib/cli/flags.ts';
import { PROTECTED_LOCATIONS } from '../lib/policy/protected.ts';
import { RUNNER_PROGRAMS } from '../lib/shell/code_runners.ts';
import { TOOLS } from '../lib/tools/mod.ts';
import { REPO } from './helpers/repo.ts';
import { anchors, docs, headings, links, readDoc, section } from './markdown.ts';

test('docs: every relative link resolves to a file of the repository and a heading in it', () => {
  const broken: string[] = [];
  for (const { rel, text } of docs()) {
    for (const link of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
      const [file = '', hash] = link.split('#');
      const target = file === '' ? rel : path.posix.normalize(path.posix.join(path.posix.dirname(rel), file));
      // A product document stands alone: nothing outside the repository (a clone has nothing else).
      if (target.startsWith('../') || path.isAbsolute(target)) broken.push(`${rel}: ${link} leaves the repository`);
      else if (!existsSync(path.join(REPO, target))) broken.push(`${rel}: ${link} (no file ${target})`);
      else if (hash !== undefined && target.endsWith('.md') && !anchors(readDoc(target)).has(hash))
        broken.push(`${rel}: ${link} (no heading #${hash} in ${target})`);
    }
  }
  assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`);
});

test('docs: docs/cli.md names every command, every flag and every short letter of the CLI', () => {
  const cli = readDoc('docs/cli.md');
  const missing = [
    ...COMMANDS.filter((c) => !cli.includes(`mewcode ${c}`)).map((c) => `the command "mewcode ${c}"`),
    ...Object.keys(FLAGS)
      .filter((f) => !new RegExp(`--${f}(?![\\w-])`).test(cli))
      .map((f) => `--${f}`),
    ...[GLOBAL_SHORTS, ...Object.values(COMMAND_SHORTS)].flatMap((shorts) =>
      Object.entries(shorts)
        .filter(([letter, flag]) => !cli.includes(`-${letter}, --${flag}`))
        .map(([letter, flag]) => `-${letter}, --${flag}`),
    ),
  ];
  assert.deepEqual(missing, [], `docs/cli.md does not document: ${missing.join('; ')}`);
});

test('docs: docs/tools.md has a section for every tool, naming each of its parameters', () => {
  const guide = readDoc('docs/tools.md');
  const sections = headings(guide);
  const missing: string[] = [];
  for (const tool of [...TOOLS, agentTool]) {
    const heading = sections.find((h) => h.text.replaceAll('`', '') === tool.name);
    if (!heading) {
      missing.push(`a heading "${tool.name}"`);
      continue;
    }
    const body = section(guide, heading);
    for (const param of Object.keys(tool.inputSchema.properties))
      if (!body.includes(`\`${param}\``)) missing.push(`${tool.name}: \`${param}\``);
  }
  assert.deepEqual(missing, [], `docs/tools.md does not document: ${missing.join('; ')}`);
});

test('docs: the permission guide lists every program the policy treats as running code', () => {
  const guide = readDoc('docs/permissions.md');
  const table = section(guide, headings(guide).find((h) => h.text === 'What a command rule covers') ?? assert.fail());
  // A program is listed by name (`sed`), with the options that make it run code (`printf -v`), or
  // under a family's wildcard (`pypy*`).
  const families = [...table.matchAll(/`([\w.-]+)\*`/g)].map((m) => m[1] as string);
  const missing = RUNNER_PROGRAMS.filter(
    (p) => !table.includes(`\`${p}\``) && !table.includes(`\`${p} `) && !families.some((f) => p.startsWith(f)),
  );
  assert.deepEqual(missing, [], `"What a command rule covers" does not list: ${missing.join(', ')}`);
});

test('docs: the permission and sandbox guides name every protected location', () => {
  for (const rel of ['docs/permissions.md', 'docs/sandbox.md']) {
    const text = readDoc(rel);
    const missing = PROTECTED_LOCATIONS.filter((l) => !text.includes(`\`${l.name}/\``)).map((l) => l.name);
    assert.deepEqual(missing, [], `${rel} does not name the protected ${missing.join(', ')}`);
  }
});

test('docs: ARCHITECTURE.md maps every folder of lib/, and no folder that is gone', () => {
  const folders = readdirSync(path.join(REPO, 'lib'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `lib/${e.name}/`)
    .sort();
  const rows = [...readDoc('ARCHITECTURE.md').matchAll(/^\| `(lib\/[a-z_]+\/)` \|/gm)]
    .map((m) => m[1] as string)
    .sort();
  assert.deepEqual(rows, folders, 'the folder map names exactly the folders of lib/');
});
