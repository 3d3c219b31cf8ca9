/**
 * The README stands alone (a clone has nothing else): each section once, its links to its own
 * headings resolving. A splice that repeats a run of sections, or renames a heading a link points
 * to, fails here rather than in a reader's hands.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO } from './helpers/repo.ts';

const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
/** Headings outside fenced code blocks. */
const headings = readme
  .split(/^```.*$/m)
  .filter((_, i) => i % 2 === 0)
  .flatMap((part) =>
    [...part.matchAll(/^(#{1,4}) (.+)$/gm)].map((m) => ({ level: m[1] as string, text: m[2] as string })),
  );
/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
const anchor = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

test('readme: no section or paragraph run appears twice', () => {
  const top = headings.filter((h) => h.level === '##').map((h) => h.text);
  assert.deepEqual(
    top.filter((t, i) => top.indexOf(t) !== i),
    [],
    'a ## heading repeated',
  );
  const paragraphs = readme.split(/\n\s*\n/).filter((p) => p.length > 300 && !p.startsWith('|'));
  assert.deepEqual(
    paragraphs.filter((p, i) => paragraphs.indexOf(p) !== i).map((p) => p.slice(0, 80)),
    [],
    'a long paragraph repeated',
  );
});

test('readme: every link to a heading of its own resolves', () => {
  const anchors = new Set(headings.map((h) => anchor(h.text)));
  const links = [...readme.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1] as string);
  assert.ok(links.length > 0);
  assert.deepEqual(
    links.filter((l) => !anchors.has(l)),
    [],
  );
});
