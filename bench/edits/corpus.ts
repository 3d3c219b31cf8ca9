/**
 * Builds the edit corpus for a seed and scores a matcher on it: each case is applied right, applied
 * WRONG, refused naming the intended place first, or refused with a useless hint. Contenders: MewCode's
 * matcher (lib/edit/replace.ts) and the exact-only rule (one exact occurrence, else refuse with no
 * hint). Pure: no files are written.
 */
import path from 'node:path';
import { replaceText } from '../../lib/edit/replace.ts';
import { eolOf } from '../../lib/files/text_file.ts';
import { type Case, casesFor } from './cases.ts';
import { rng } from './prng.ts';
import { pickSources } from './sources.ts';

export const OUTCOMES = ['right', 'WRONG', 'refused, right place', 'refused, useless'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** What a contender did with a case: the new text, or the refusal's message. */
export type Attempt = { applied: string } | { refused: string };

export const repoRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** The corpus for a seed: `scale` sizes the set of source files, `per` the cases per kind and file. */
export function buildCorpus(
  seed: number,
  scale = 1,
  per = 3,
): { cases: Case[]; files: number; skipped: Record<string, number> } {
  const skipped: Record<string, number> = {};
  const sources = pickSources(repoRoot, rng(seed), scale);
  // Each file's cases come from a generator of their own, so a change to one file changes only its cases.
  const cases = sources.flatMap((s) => casesFor(s, rng(seed ^ hash(s.name)), per, skipped));
  return { cases, files: sources.length, skipped };
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function mewcode(c: Case): Attempt {
  return attempt(replaceText, c);
}

/** A replaceText (this checkout's, or another's for a before/after run) on a case. */
export function attempt(replace: typeof replaceText, c: Case): Attempt {
  const out = replace(c.text, eolOf(c.text), { old_string: c.old, new_string: c.neu }, c.file);
  return out.ok ? { applied: out.value.text } : { refused: out.error.content };
}

export function exactOnly(c: Case): Attempt {
  const crlf = c.text.includes('\r\n');
  const old = crlf ? c.old.replace(/\n/g, '\r\n') : c.old;
  const at = c.text.indexOf(old);
  if (at === -1 || c.text.indexOf(old, at + 1) !== -1) return { refused: '' };
  const neu = crlf ? c.neu.replace(/\n/g, '\r\n') : c.neu;
  return { applied: c.text.slice(0, at) + neu + c.text.slice(at + old.length) };
}

/** The line ranges a refusal names, in order ("line 4", "lines 4–9", "lines 3, 9"). */
export function namedRanges(message: string): [number, number][] {
  const out: [number, number][] = [];
  for (const m of message.matchAll(/\blines? (\d+)(?:[–-](\d+))?((?:, \d+)*)/gi)) {
    const a = Number(m[1]);
    out.push([a, m[2] ? Number(m[2]) : a]);
    for (const n of (m[3] ?? '').match(/\d+/g) ?? []) out.push([Number(n), Number(n)]);
  }
  return out;
}

const overlaps = (a: [number, number], b: [number, number]) => a[0] <= b[1] && b[0] <= a[1];

export function classify(c: Case, a: Attempt): Outcome {
  if ('applied' in a) return c.intended !== undefined && a.applied === c.intended ? 'right' : 'WRONG';
  const named = namedRanges(a.refused);
  // Ambiguity has no one right place: naming any of the copies counts. Otherwise the first range named.
  const ok = c.kind.startsWith('ambiguous')
    ? named.some((n) => c.places.some((p) => overlaps(n, p)))
    : named.length > 0 && c.places.some((p) => overlaps(named[0] as [number, number], p));
  return ok ? 'refused, right place' : 'refused, useless';
}

export type Tally = Record<string, Record<Outcome, number>>;

/** Why an application is wrong, by what differs from the intended text (the kinds 1–3). */
export const CAUSES = ['whitespace', 'blank line', 'exact elsewhere', 'other'] as const;
export type Cause = (typeof CAUSES)[number];

export function wrongCause(c: Case, applied: string): Cause {
  const lf = (s: string) => s.replace(/\r\n/g, '\n');
  const text = lf(c.text);
  const old = lf(c.old);
  const place = c.places[0] as [number, number];
  // The mistaken old_string is another place's exact text: an exact match wins, as in every peer.
  for (let i = text.indexOf(old); i !== -1; i = text.indexOf(old, i + 1)) {
    const line = text.slice(0, i).split('\n').length;
    if (line !== place[0]) return 'exact elsewhere';
  }
  const a = lf(applied).split('\n');
  const b = lf(c.intended ?? '').split('\n');
  // Only blank lines differ (one more, one fewer, or whitespace on one): a blank line at the wrong place.
  const solid = (ls: string[]) => ls.filter((l) => l.trim() !== '').join('\n');
  if (solid(a) === solid(b)) return 'blank line';
  const trim = (ls: string[]) => ls.map((l) => l.trim()).join('\n');
  return a.length === b.length && trim(a) === trim(b) ? 'whitespace' : 'other';
}

/** Outcomes per kind (and 'all') for one contender, and the wrong applications by cause. */
export function score(
  cases: readonly Case[],
  run: (c: Case) => Attempt,
): { tally: Tally; wrong: Case[]; causes: Record<Cause, Case[]> } {
  const tally: Tally = {};
  const wrong: Case[] = [];
  const causes = Object.fromEntries(CAUSES.map((k) => [k, [] as Case[]])) as Record<Cause, Case[]>;
  for (const c of cases) {
    const a = run(c);
    const o = classify(c, a);
    for (const k of [c.kind, 'all']) {
      tally[k] ??= { right: 0, WRONG: 0, 'refused, right place': 0, 'refused, useless': 0 };
      (tally[k] as Record<Outcome, number>)[o]++;
    }
    if (o !== 'WRONG' || !('applied' in a)) continue;
    wrong.push(c);
    causes[wrongCause(c, a.applied)].push(c);
  }
  return { tally, wrong, causes };
}
