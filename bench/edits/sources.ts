/**
 * The real files the edit corpus is built from: this repository's lib/, test/ and README.md, and
 * files of its node_modules (JS, TS declarations, Markdown, JSON, YAML), picked by a seeded shuffle
 * so the same seed gives the same files. Nothing is copied into the repository; files are read where
 * they are. A few picks are turned CRLF in memory, so the corpus has CRLF files whatever the tree has.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Rng } from './prng.ts';

export interface Source {
  /** Path relative to the repository, for the report. */
  name: string;
  text: string;
  crlf: boolean;
  tabs: boolean;
  nonAscii: boolean;
  /** Has lines with trailing whitespace (Markdown line breaks, mostly). */
  trailing: boolean;
}

const GROUPS: readonly { name: string; test: (p: string) => boolean; take: number }[] = [
  { name: 'repo ts', test: (p) => /^(lib|test)\/.*\.ts$/.test(p), take: 14 },
  { name: 'README', test: (p) => p === 'README.md', take: 1 },
  { name: 'js', test: (p) => p.startsWith('node_modules/') && /\.(c|m)?js$/.test(p), take: 14 },
  { name: 'd.ts', test: (p) => p.startsWith('node_modules/') && p.endsWith('.d.ts'), take: 8 },
  { name: 'md', test: (p) => p.startsWith('node_modules/') && p.endsWith('.md'), take: 10 },
  { name: 'json', test: (p) => p.startsWith('node_modules/') && p.endsWith('.json'), take: 6 },
  { name: 'yml', test: (p) => p.startsWith('node_modules/') && /\.ya?ml$/.test(p), take: 2 },
];

function walk(root: string, rel: string, out: string[]): void {
  let names: string[];
  try {
    names = readdirSync(path.join(root, rel)).sort();
  } catch {
    return;
  }
  for (const n of names) {
    const p = rel ? `${rel}/${n}` : n;
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(path.join(root, p));
    } catch {
      continue;
    }
    if (st.isDirectory()) {
      if (n !== '.git' && n !== 'dist' && n !== '.bench') walk(root, p, out);
    } else if (st.size >= 1_500 && st.size <= 150_000) out.push(p);
  }
}

/** `count` groups' worth of source files (about 55 at scale 1), chosen by `r`. */
export function pickSources(repo: string, r: Rng, scale = 1): Source[] {
  const all: string[] = [];
  for (const top of ['lib', 'test', 'README.md', 'node_modules']) {
    if (top.endsWith('.md')) all.push(top);
    else walk(repo, top, all);
  }
  const out: Source[] = [];
  for (const g of GROUPS) {
    const take = Math.max(1, Math.round(g.take * scale));
    let got = 0;
    for (const p of r.shuffle(all.filter(g.test))) {
      if (got >= take) break;
      const text = readFileSync(path.join(repo, p), 'utf8');
      if (text.includes('\u0000') || text.includes('\ufffd') || text.split('\n').length < 30) continue;
      out.push(describe(p, text));
      got++;
    }
  }
  // Tab-indented, non-ASCII and trailing-whitespace files are wanted whatever the shuffle gave: add a few of each.
  const want = (test: (s: Source) => boolean, n: number) => {
    for (const p of r.shuffle(all.filter((x) => /\.(c|m)?js$|\.md$/.test(x)))) {
      if (out.filter(test).length >= n) return;
      if (out.some((s) => s.name === p)) continue;
      const text = readFileSync(path.join(repo, p), 'utf8');
      const s = describe(p, text);
      if (test(s) && !text.includes('\ufffd') && text.split('\n').length >= 30) out.push(s);
    }
  };
  want((s) => s.tabs, Math.round(5 * scale) || 1);
  want((s) => s.nonAscii, Math.round(5 * scale) || 1);
  want((s) => s.trailing, Math.round(5 * scale) || 1);
  // Every seventh file becomes CRLF (in memory).
  return out.map((s, i) => (i % 7 === 3 && !s.crlf ? { ...s, text: s.text.replace(/\r?\n/g, '\r\n'), crlf: true } : s));
}

function describe(name: string, text: string): Source {
  const lines = text.split('\n');
  return {
    name,
    text,
    crlf: text.includes('\r\n'),
    tabs: lines.filter((l) => l.startsWith('\t')).length > lines.length / 10,
    nonAscii: /[\u0080-\uffff]/.test(text),
    trailing: lines.filter((l) => /\S[ \t]+\r?$/.test(l)).length >= 3,
  };
}
