/**
 * Which whitespace new_string is written in, decided from evidence in new_string itself. A model may
 * copy old_string with its indentation shifted (or trailing whitespace the file lacks) and yet write
 * new_string at the file's true whitespace, or carry the mistake into new_string as well; old_string
 * alone cannot tell. The lines new_string leaves unchanged can: where old_string's line differs from
 * the file's in its indentation (or its trailing whitespace), new_string's copy agrees with the file
 * ('file': write new_string as it is), with old_string ('old': give it old_string's shift), or with
 * neither — then nothing places new_string for sure, and the edit is refused with both shown.
 */
import { diffArrays } from 'diff';
import { errValue, okValue, type Result } from '../core/result.ts';
import { leadOf } from './indent.ts';
import { lineKey } from './normalize.ts';

export type Frame = 'file' | 'old';

/** new_string's frame for indentation and for trailing whitespace, each decided on its own. */
export interface Frames {
  lead: Frame;
  tail: Frame;
}

/** What the reader calls old_string and new_string (a model and the command line differ). */
export interface Names {
  old: string;
  neu: string;
}

export const tailOf = (s: string): string => s.slice(s.trimEnd().length);

/** A pair of lines the model kept (same text) or changed in place: file's, old_string's, new_string's. */
interface Pair {
  f: string;
  o: string;
  n: string;
  /** 0-based line in old_string. */
  j: number;
}

type Vote = Frame | 'neither';

/**
 * Lines new_string leaves unchanged (same text as old_string's, whitespace and tolerated characters
 * aside) and, apart, lines it changes in place (as many lines removed as written at one spot).
 */
function pairsOf(block: readonly string[], old: readonly string[], neu: readonly string[]): [Pair[], Pair[]] {
  const kept: Pair[] = [];
  const changed: Pair[] = [];
  let j = 0;
  let k = 0;
  const parts = diffArrays(old.map(lineKey), neu.map(lineKey));
  for (const [i, part] of parts.entries()) {
    const n = part.value.length;
    const next = parts[i + 1];
    if (part.removed && next?.added && next.value.length === n)
      for (let q = 0; q < n; q++) changed.push(pairAt(block, old, neu, j + q, k + q));
    if (!part.added && !part.removed) for (let q = 0; q < n; q++) kept.push(pairAt(block, old, neu, j + q, k + q));
    if (!part.added) j += n;
    if (!part.removed) k += n;
  }
  // Blank lines all look alike, so which blank new_string kept is no evidence of its frame.
  const solid = (p: Pair) => p.o.trim() !== '' && p.n.trim() !== '';
  return [kept.filter(solid), changed.filter(solid)];
}

const pairAt = (block: readonly string[], old: readonly string[], neu: readonly string[], j: number, k: number) => ({
  f: block[j] as string,
  o: old[j] as string,
  n: neu[k] as string,
  j,
});

/** How each pair's `part` (indentation or trailing whitespace) votes; lines where old_string and the file agree say nothing. */
function votes(pairs: readonly Pair[], part: (s: string) => string): { v: Vote; p: Pair }[] {
  const out: { v: Vote; p: Pair }[] = [];
  for (const p of pairs) {
    const [f, o, n] = [part(p.f), part(p.o), part(p.n)];
    if (f === o) continue;
    out.push({ v: n === f ? 'file' : n === o ? 'old' : 'neither', p });
  }
  return out;
}

/**
 * One dimension's frame: from the unchanged lines, else from lines changed in place, else old_string's
 * (a model most often writes new_string as it wrote old_string). Lines that agree with neither frame
 * beside lines that agree with one were re-indented on purpose; lines agreeing only with neither, or
 * some with the file and some with old_string, leave no sure frame.
 */
function decide(
  tiers: readonly Pair[][],
  part: (s: string) => string,
  what: string,
  names: Names,
): Result<Frame, string> {
  for (const pairs of tiers) {
    const vs = votes(pairs, part);
    if (vs.length === 0) continue;
    const file = vs.find((x) => x.v === 'file');
    const old = vs.find((x) => x.v === 'old');
    if (file && old) return errValue(mixed(file.p, old.p, part, what, names));
    const one = file ?? old;
    if (one) return okValue(one.v as Frame);
    return errValue(neither((vs[0] as { p: Pair }).p, part, what, names));
  }
  return okValue('old');
}

const show = (p: Pair, part: (s: string) => string, w: Names) =>
  `the file has ${JSON.stringify(part(p.f))}, ${w.old} ${JSON.stringify(part(p.o))}, ${w.neu} ${JSON.stringify(part(p.n))}`;

function mixed(file: Pair, old: Pair, part: (s: string) => string, what: string, w: Names): string {
  return `${w.neu}'s unchanged lines disagree about ${what}: its copy of ${w.old}'s line ${file.j + 1} follows the file (${show(file, part, w)}), its copy of line ${old.j + 1} follows ${w.old} (${show(old, part, w)})`;
}

function neither(p: Pair, part: (s: string) => string, what: string, w: Names): string {
  return `${w.neu}'s unchanged lines follow neither the file's ${what} nor ${w.old}'s (${w.old}'s line ${p.j + 1}: ${show(p, part, w)})`;
}

/** new_string's frames, or why none is sure. `block` is the file's fitted lines (no CR). */
export function framesOf(
  block: readonly string[],
  old: readonly string[],
  neu: readonly string[],
  names: Names,
): Result<Frames, string> {
  const tiers = pairsOf(block, old, neu);
  const lead = decide(tiers, leadOf, 'indentation', names);
  if (!lead.ok) return lead;
  const tail = decide(tiers, tailOf, 'trailing whitespace', names);
  if (!tail.ok) return tail;
  return okValue({ lead: lead.value, tail: tail.value });
}

/**
 * old_string's line as new_string would copy it unchanged in these frames: its text with the file's
 * indentation or its own, and the file's trailing whitespace or its own. A blank line is all trailing
 * whitespace.
 */
export function expected(f: string, o: string, fr: Frames): string {
  if (o.trim() === '') return fr.tail === 'file' ? f : o;
  const lead = fr.lead === 'file' ? leadOf(f) : leadOf(o);
  return lead + o.trim() + (fr.tail === 'file' ? tailOf(f) : tailOf(o));
}
