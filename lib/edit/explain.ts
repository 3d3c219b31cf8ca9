/**
 * Why an edit was refused, in terms the model can act on: the candidate blocks ranked over all of
 * old_string's lines (not its first line only, so a block starting with `}` is found), the best one's
 * line range, and a compact diff of what differs there. Plain words when old_string carries literal
 * `\n`, read_file's line numbers or elisions.
 */
import { diffArrays } from 'diff';
import { quote } from '../core/text.ts';
import { type FileLines, type Fit, fitAt } from './block.ts';
import { leadOf } from './indent.ts';
import { isElision, lineKey, significant } from './normalize.ts';
import { hasLineNumbers, hasLiteralNewlines } from './variants.ts';

const cap = (s: string) => `${s[0]?.toUpperCase()}${s.slice(1)}`;

/** A 1-based inclusive line range, "line 4" or "lines 4–9". */
export const lineRange = (a: number, b: number): string => (a === b ? `line ${a}` : `lines ${a}–${b}`);

interface Place {
  /** 0-based first and last line. */
  start: number;
  end: number;
  alike: number;
}

const MAX_VOTERS = 500;

/** The block of the file most like old_string's lines, or undefined when nothing resembles them. */
function closestPlace(file: FileLines, old: readonly string[]): Place | undefined {
  const keys = old.map(lineKey);
  const votes = new Map<number, number>();
  const missing: number[] = [];
  for (const [j, k] of keys.entries()) {
    const at = k === '' ? undefined : file.index.get(k);
    if (significant(k) && !at) missing.push(j);
    if (!at || at.length > MAX_VOTERS) continue;
    // A line with a letter or digit in it says far more about the place than a `}` does.
    for (const q of at) votes.set(q - j, (votes.get(q - j) ?? 0) + (significant(k) ? 4 : 1));
  }
  // A significant line not in the file as it is (a token changed): its nearest lines point the way.
  const longest = missing.sort((a, b) => (keys[b] as string).length - (keys[a] as string).length).slice(0, 2);
  for (const j of longest) for (const p of nearestLines(file, keys, j)) votes.set(p, (votes.get(p) ?? 0) + 4);
  const starts = [...votes.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 8);
  let best: Place | undefined;
  for (const [p] of starts) {
    const place = alignAt(file, keys, p);
    if (!best || place.alike > best.alike) best = place;
  }
  return best;
}

/** old_string aligned with the file around start `p`: the lines it covers and how many are alike. */
function alignAt(file: FileLines, keys: readonly string[], p: number): Place {
  const m = keys.length;
  const w0 = Math.max(0, p - 3);
  const w1 = Math.min(file.keys.length, p + m + 3);
  let i = w0;
  let j = 0;
  let alike = 0;
  const common: { i: number; j: number; sig: boolean }[] = [];
  for (const part of diffArrays([...keys], file.keys.slice(w0, w1))) {
    const n = part.value.length;
    if (part.added) i += n;
    else if (part.removed) j += n;
    else {
      for (const [q, k] of part.value.entries()) if (k !== '') common.push({ i: i + q, j: j + q, sig: significant(k) });
      alike += common.length - alike;
      i += n;
      j += n;
    }
  }
  // Lines like `}` align anywhere: keep those in line (within two lines) with the significant ones.
  const sig = common.filter((c) => c.sig);
  const near = (c: { i: number; j: number }, s: { i: number; j: number } | undefined) =>
    !s || Math.abs(c.i - c.j - (s.i - s.j)) <= 2;
  const first = common.find((c) => near(c, sig[0]));
  const last = common.findLast((c) => near(c, sig.at(-1)));
  if (!first || !last)
    return { start: Math.max(0, p), end: Math.min(file.keys.length - 1, Math.max(0, p) + m - 1), alike: 0 };
  const start = Math.max(0, first.i - first.j);
  const end = Math.min(file.keys.length - 1, last.i + (m - 1 - last.j));
  return { start, end: Math.max(start, end), alike };
}

/** Starts implied by the file lines nearest (by edit distance) to old_string's line `j`. */
function nearestLines(file: FileLines, keys: readonly string[], j: number): number[] {
  const target = (keys[j] as string).slice(0, 200);
  if (!significant(target)) return [];
  const cap = Math.max(2, Math.floor(target.length / 3));
  const scored: { q: number; d: number }[] = [];
  const n = Math.min(file.keys.length, 50_000);
  for (let q = 0; q < n; q++) {
    const k = file.keys[q] as string;
    if (Math.abs(k.length - target.length) > cap) continue;
    const d = distance(k, target, cap);
    if (d <= cap) scored.push({ q, d });
  }
  return scored
    .sort((a, b) => a.d - b.d || a.q - b.q)
    .slice(0, 3)
    .map((s) => s.q - j);
}

function distance(a: string, b: string, cap: number): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let k = 1; k <= b.length; k++)
      cur.push(
        Math.min(
          (prev[k] as number) + 1,
          (cur[k - 1] as number) + 1,
          (prev[k - 1] as number) + (a[i - 1] === b[k - 1] ? 0 : 1),
        ),
      );
    if (Math.min(...cur) > cap) return cap + 1;
    prev = cur;
  }
  return prev[b.length] as number;
}

const clip = (s: string) => JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s);

/** A compact diff of old_string against the place: only the lines that differ, at most eight. */
function compactDiff(file: FileLines, old: readonly string[], place: Place, label: string): string {
  const keys = old.map(lineKey);
  const out: string[] = [];
  let i = place.start;
  let j = 0;
  for (const part of diffArrays([...keys], file.keys.slice(place.start, place.end + 1))) {
    for (const _ of part.value) {
      if (part.added) out.push(`  + file ${i + 1}: ${clip(file.bare[i++] as string)}`);
      else if (part.removed) out.push(`  - ${label}: ${clip(old[j++] as string)}`);
      else {
        i++;
        j++;
      }
    }
  }
  const shown = out.slice(0, 8);
  if (out.length > 8) shown.push(`  … ${out.length - 8} more`);
  return shown.join('\n');
}

/** Plain statements about old_string's form that explain a miss by themselves. */
export function formNotes(oldText: string, label: string): string[] {
  const notes: string[] = [];
  if (hasLiteralNewlines(oldText))
    notes.push(
      `${label} is one line holding literal \\n sequences (backslash and n), not line breaks: write real line breaks.`,
    );
  if (hasLineNumbers(oldText.split('\n')))
    notes.push(`${label} starts its lines with read_file's line numbers ("    12<tab>"): leave those out.`);
  if (oldText.split('\n').some(isElision))
    notes.push(`${label} leaves lines out ("..."): the edit tools need every line of the text to replace, in full.`);
  return notes;
}

/** The refusal when old_string fits nowhere. */
export function explainMiss(file: FileLines, old: readonly string[], label: string, shown: string): string {
  const place = closestPlace(file, old);
  if (!place) return `No lines of ${quote(shown)} resemble it. `;
  const keys = old.map(lineKey);
  const whole = place.end - place.start + 1 === old.length;
  if (whole && keys.every((k, j) => file.keys[place.start + j] === k)) {
    const fit = fitAt(file, old, keys, place.start);
    if (!fit) {
      const j = keys.findIndex((k, q) => k !== '' && q > 0);
      const f = leadOf(file.bare[place.start + Math.max(j, 0)] ?? '');
      const o = leadOf(old[Math.max(j, 0)] ?? '');
      return `${cap(lineRange(place.start + 1, place.end + 1))} match it up to whitespace, but their indentation differs by more than one uniform shift (e.g. the file has ${JSON.stringify(f)} where ${label} has ${JSON.stringify(o)}), which may change meaning. `;
    }
  }
  const m = keys.filter((k) => k !== '').length;
  return `The closest place is ${lineRange(place.start + 1, place.end + 1)} (${place.alike} of ${m} non-blank lines alike); what differs:\n${compactDiff(file, old, place, label)}\n`;
}

/** The refusal when old_string fits several places, or one with a near miss. */
export function explainAmbiguous(fits: readonly Fit[], near: readonly number[], m: number, tolerated: string): string {
  const where = (p: number) => lineRange(p + 1, p + m);
  // The closest fit first: fewer kinds of difference tolerated, then earlier in the file.
  const loose = (f: Fit) =>
    (f.fixes.length > 0 ? 4 : 0) + (f.shift.same && f.shift.firstLead === undefined ? 0 : 2) + (f.trailing ? 1 : 0);
  const sorted = [...fits].sort((a, b) => loose(a) - loose(b) || a.at - b.at);
  if (sorted.length > 1) {
    const list = sorted.slice(0, 5).map((f) => where(f.at));
    return `Up to ${tolerated} it fits ${sorted.length} places (${list.join('; ')}${sorted.length > 5 ? '; …' : ''}), so it was not applied. Copy the text exactly, with enough surrounding lines to fit one place.`;
  }
  const fit = sorted[0] as Fit;
  return `${cap(where(fit.at))} fit it up to ${tolerated}, but ${near.slice(0, 3).map(where).join('; ')} differ from it in one line only (changed, added or dropped), so it was not applied. Copy the text exactly as read_file shows it, with enough surrounding lines to tell the places apart.`;
}
