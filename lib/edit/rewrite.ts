/**
 * The lines that replace a fitted block. new_string is aligned line by line with old_string: a line
 * the model left unchanged keeps the file's own bytes (its indentation, trailing whitespace, quotes,
 * line ending); a line it wrote gets the character fixes, and the fit's indentation shift only when
 * new_string's unchanged lines show it was written in old_string's frame (frame.ts). A written line
 * never gains trailing whitespace the line it replaces lacks unless its text changed.
 */
import { diffArrays } from 'diff';
import { errValue, okValue, type Result } from '../core/result.ts';
import type { Fit } from './block.ts';
import { expected, type Frames, framesOf, type Names, tailOf } from './frame.ts';
import { columns, leadOf, shiftLine } from './indent.ts';
import { applyFixes, lineKey, lostChars } from './normalize.ts';

/**
 * With old_string's first line copied from mid-indentation, the column no later line the model wrote
 * may start left of: the first line's and the block's own least indentation. Left of both, the line's
 * frame is unknowable (written beside the first line, or at the file's column?) and in Python the two
 * readings put it in different blocks.
 */
export function leftFloor(fit: Fit, block: readonly string[]): number | undefined {
  const first = fit.shift.firstLead;
  if (first === undefined) return undefined;
  const rest = block.slice(1).filter((l) => l.trim() !== '');
  return Math.min(columns(first, fit.shift.unit), ...rest.map((l) => columns(leadOf(l), fit.shift.unit)));
}

/**
 * A line new_string wrote, moved into the file's frame; `k` is its index in new_string. Undefined when
 * no frame places it for sure: shifted left of column 0, or left of `floor` (see leftFloor).
 */
export function frameLine(
  line: string,
  k: number,
  fit: Fit,
  old0: string,
  file0: string,
  floor?: number,
): string | undefined {
  const fixed = applyFixes(line, fit.fixes);
  // A first line whose indentation old_string had dropped: new_string either dropped it too (give it
  // the file's) or wrote the file's own (keep it).
  if (k === 0 && leadOf(old0) === '' && leadOf(file0) !== '') {
    const lead = leadOf(fixed);
    if (lead === leadOf(file0)) return fixed;
    if (lead === '' && (fit.shift.firstLead !== undefined || fit.shift.same)) return leadOf(file0) + fixed;
  }
  const framed = shiftLine(fixed, fit.shift);
  if (framed === undefined || k === 0 || floor === undefined || framed.trim() === '') return framed;
  return columns(leadOf(framed), fit.shift.unit) < floor ? undefined : framed;
}

/** A written line's trailing whitespace, given the line of old_string (and the file) it replaces, if any. */
function retail(framed: string, n: string, o: string | undefined, f: string | undefined): string {
  if (o === undefined || f === undefined) return framed;
  // Trailing whitespace new_string copied from old_string's line is old_string's, so the file's stands.
  if (tailOf(n) === tailOf(o)) return framed.trimEnd() + tailOf(f);
  // A line whose text new_string left as it was never gains trailing whitespace the file's line lacks.
  if (lineKey(n) === lineKey(o) && tailOf(f) === '') return framed.trimEnd();
  return framed;
}

type Part = { value: unknown[]; added?: boolean; removed?: boolean };

/**
 * new_string aligned with old_string's lines as new_string's frames would copy them (or as the file
 * has them). Refused when the alignment is a guess that matters: a line old_string gives twice alike
 * (two blank lines, once with trailing whitespace in the file) where new_string drops one, and the
 * file's two differ — keeping either is a wrong apply half the time.
 */
function align(block: readonly string[], old: readonly string[], neu: readonly string[], fr: Frames, w: Names) {
  const left = old.map((o, j) => ({ s: expected(block[j] as string, o, fr), alt: block[j] as string }));
  const right = neu.map((s) => ({ s, alt: s }));
  const same = (a: { s: string; alt: string }, b: { s: string }) => a.s === b.s || a.alt === b.s;
  const parts: Part[] = diffArrays(left, right, { comparator: same });
  const keptAs = new Map<number, number>();
  const removed: number[] = [];
  let [j, k] = [0, 0];
  for (const part of parts)
    for (const _ of part.value) {
      if (part.removed) removed.push(j++);
      else if (part.added) k++;
      else keptAs.set(j++, k++);
    }
  for (const r of removed)
    for (const q of [r - 1, r + 1]) {
      const kk = keptAs.get(q);
      if (
        kk === undefined ||
        block[q] === block[r] ||
        !same(left[r] as { s: string; alt: string }, right[kk] as { s: string })
      )
        continue;
      const [a, b] = [Math.min(q, r) + 1, Math.max(q, r) + 1];
      return errValue(
        `${w.old}'s lines ${a} and ${b} read alike but the file's differ (${JSON.stringify(block[a - 1])}, ${JSON.stringify(block[b - 1])}), and ${w.neu} keeps only one of them, so which one it keeps is a guess`,
      );
    }
  return okValue(parts);
}

/**
 * The file's raw lines (CR kept) for the block at `fit.at` of old_string's length, replaced by
 * new_string's lines in new_string's frames (frame.ts): lines it left unchanged keep the file's bytes;
 * lines it wrote get the fit's shift only when new_string is in old_string's frame. Refused, with the
 * reason, when no frame is sure, the alignment is a guess, a written line has no sure place
 * (frameLine), or a file line holding characters old_string's lacks (`\"`, NBSP, curly quote) is
 * rewritten and would lose them (these last two with no reason: the caller words them).
 */
export function replaceBlock(
  raw: readonly string[],
  bare: readonly string[],
  fit: Fit,
  old: readonly string[],
  neu: readonly string[],
  names: Names,
): Result<{ lines: string[]; frames: Frames }, string | undefined> {
  const at = fit.at;
  const block = bare.slice(at, at + old.length);
  const frames = framesOf(block, old, neu, names);
  if (!frames.ok) return frames;
  const aligned = align(block, old, neu, frames.value, names);
  if (!aligned.ok) return aligned;
  const parts = aligned.value;
  const floor = leftFloor(fit, block);
  const cr = (raw[at] as string).endsWith('\r') ? '\r' : '';
  const out: string[] = [];
  let [j, k] = [0, 0];
  for (const [n, part] of parts.entries()) {
    if (part.removed) {
      for (let q = 0; q < part.value.length; q++, j++)
        if (lostChars(bare[at + j] as string, old[j] as string).length > 0 && parts.some((x) => x.added))
          return errValue(undefined);
      continue;
    }
    // A line changed in place (as many lines removed just before as added) replaces the line there.
    const prev = parts[n - 1];
    const paired = part.added && prev?.removed && prev.value.length === part.value.length;
    for (let q = 0; q < part.value.length; q++) {
      if (!part.added) {
        out.push(raw[at + j++] as string);
        k++;
        continue;
      }
      const line = neu[k] as string;
      const framed =
        frames.value.lead === 'old'
          ? frameLine(line, k, fit, old[0] as string, bare[at] as string, floor)
          : applyFixes(line, fit.fixes);
      k++;
      if (framed === undefined) return errValue(undefined);
      const from = paired ? j - part.value.length + q : -1;
      out.push(retail(framed, line, old[from], block[from]) + cr);
    }
  }
  // The block ran to the end of a file without a final newline: so does the replacement.
  const lastRaw = raw[at + old.length - 1] as string;
  if (at + old.length === raw.length && !lastRaw.endsWith('\r') && out.length > 0) {
    out[out.length - 1] = (out.at(-1) as string).replace(/\r$/, '');
  }
  return okValue({ lines: out, frames: frames.value });
}
