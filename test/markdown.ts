/**
 * The product's documents as the docs tests read them: README.md, ARCHITECTURE.md and every file of
 * docs/, with their headings, GitHub's anchors for them, and their links. Code blocks are left out:
 * a `# comment` in a shell example is not a heading, and `](` inside code is not a link.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './helpers/repo.ts';

export interface Doc {
  /** Path relative to the repository, with `/` separators. */
  rel: string;
  text: string;
}

/** README.md, ARCHITECTURE.md, then docs/*.md in name order. */
export function docs(): Doc[] {
  const guides = readdirSync(path.join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', 'ARCHITECTURE.md', ...guides].map((rel) => ({ rel, text: readDoc(rel) }));
}

export const readDoc = (rel: string): string => readFileSync(path.join(REPO, rel), 'utf8');

/** The text outside fenced code blocks. */
export const prose = (text: string): string =>
  text
    .split(/^```.*$/m)
    .filter((_, i) => i % 2 === 0)
    .join('\n');

export interface Heading {
  level: number;
  text: string;
  /** Offset of the heading line in the whole text. */
  at: number;
}

/** Headings of levels 1 to 4 outside fenced code blocks, in order. */
export function headings(text: string): Heading[] {
  const out: Heading[] = [];
  let inFence = false;
  let at = 0;
  for (const line of text.split('\n')) {
    if (/^```/.test(line)) inFence = !inFence;
    const m = inFence ? null : /^(#{1,4}) (.+)$/.exec(line);
    if (m) out.push({ level: (m[1] as string).length, text: m[2] as string, at });
    at += line.length + 1;
  }
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
export const anchor = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/** Every anchor a document's headings get; a repeated one takes `-1`, `-2`, … as on GitHub. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(text)) {
    const base = anchor(h.text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Targets of Markdown links outside code (fenced blocks and inline code spans). */
export const links = (text: string): string[] =>
  [
    ...prose(text)
      .replace(/`[^`\n]*`/g, '')
      .matchAll(/\]\(([^)\s]+)\)/g),
  ].map((m) => m[1] as string);

/** A heading's section: from its line to the next heading of the same or a higher level. */
export function section(text: string, h: Heading): string {
  const next = headings(text).find((o) => o.at > h.at && o.level <= h.level);
  return text.slice(h.at, next?.at ?? text.length);
}
