/**
 * The README stands alone (a clone has nothing else): each section once, its links to its own
 * headings resolving, a newcomer's two commands first, short enough to read in a minute. A splice
 * that repeats a run of sections, or renames a heading a link points to, fails here rather than in a
 * reader's hands. The same checks apply to ARCHITECTURE.md and every guide in docs/.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { anchors, docs, headings, readDoc } from './markdown.ts';

const readme = readDoc('README.md');

test('readme: no section or paragraph run appears twice', () => {
  for (const { rel, text } of docs()) {
    const top = headings(text)
      .filter((h) => h.level === 2)
      .map((h) => h.text);
    assert.deepEqual(
      top.filter((t, i) => top.indexOf(t) !== i),
      [],
      `a ## heading repeated in ${rel}`,
    );
    const paragraphs = text.split(/\n\s*\n/).filter((p) => p.length > 300 && !p.startsWith('|'));
    assert.deepEqual(
      paragraphs.filter((p, i) => paragraphs.indexOf(p) !== i).map((p) => p.slice(0, 80)),
      [],
      `a long paragraph repeated in ${rel}`,
    );
  }
});

test('readme: every link to a heading of its own resolves', () => {
  for (const { rel, text } of docs()) {
    const own = anchors(text);
    const links = [...text.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1] as string);
    if (rel === 'README.md') assert.ok(links.length > 0);
    assert.deepEqual(
      links.filter((l) => !own.has(l)),
      [],
      `links to headings ${rel} does not have`,
    );
  }
});

test('readme: starts with the two commands a newcomer runs', () => {
  const start = [
    '# MewCode',
    '',
    '```sh',
    `npm ci && npx tsx mewcode.ts call read_file '{"file_path":"package.json"}'   # install, then run a tool`,
    'npm test                                                                     # type-check, lint, all tests',
    '```',
  ];
  assert.deepEqual(readme.split('\n').slice(0, start.length), start);
});

test('readme: reads in a minute (at most 250 lines; the details live in docs/)', () => {
  const lines = readme.split('\n').length - 1;
  assert.ok(lines <= 250, `README.md has ${lines} lines; move details into a guide under docs/`);
});
