/**
 * The lines that replace a fitted block. new_string is aligned line by line with old_string: a line
 * the model left unchanged keeps the file's own bytes (its indentation, trailing whitespace, quotes,
 * line ending); a line it wrote gets the fit's indentation shift and character fixes, because it
 * wrote it in old_string's frame.
 */
import { diffArrays } from 'diff';
import type { Fit } from './block.ts';
import { columns, leadOf, shiftLine } from './indent.ts';
import { applyFixes, lostChars } from './normalize.ts';

const tail = (s: string) => s.slice(s.trimEnd().length);

/** The file line's trailing whitespace when old_string's line and the new line both lack any. */
function droppedTail(file: string, oldLine: string, framed: string): string {
  return tail(oldLine) === '' && tail(framed) === '' ? tail(file) : '';
}

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

/**
 * The file's raw lines (CR kept) for the block at `fit.at` of old_string's length, replaced by
 * new_string's lines; undefined when a written line has no sure place (frameLine), or when a file line
 * that holds characters old_string's lacks (a `\"`, NBSP, curly quote) is rewritten and would lose them.
 */
export function replaceBlock(
  raw: readonly string[],
  bare: readonly string[],
  fit: Fit,
  old: readonly string[],
  neu: readonly string[],
): string[] | undefined {
  const at = fit.at;
  const floor = leftFloor(fit, bare.slice(at, at + old.length));
  const cr = (raw[at] as string).endsWith('\r') ? '\r' : '';
  const out: string[] = [];
  let j = 0;
  let k = 0;
  // new_string's first line written with the file's indentation but otherwise old_string's is the
  // unchanged line (old_string had dropped that indentation): align it as such.
  const first = neu[0];
  const aligned =
    first !== undefined &&
    first !== old[0] &&
    first.trimStart() === old[0] &&
    leadOf(first) === leadOf(bare[at] as string);
  const parts = diffArrays([...old], aligned ? [old[0] as string, ...neu.slice(1)] : [...neu]);
  for (const [n, part] of parts.entries()) {
    if (part.removed) {
      for (let q = 0; q < part.value.length; q++, j++)
        if (lostChars(bare[at + j] as string, old[j] as string).length > 0 && parts.some((x) => x.added))
          return undefined;
      continue;
    }
    // A line changed in place (as many lines removed just before as added) keeps the trailing
    // whitespace old_string had dropped: a Markdown line break stays on its line.
    const prev = parts[n - 1];
    const paired = part.added && prev?.removed && prev.value.length === part.value.length;
    for (const [q, line] of part.value.entries()) {
      if (!part.added) {
        out.push(raw[at + j++] as string);
        k++;
        continue;
      }
      let framed = frameLine(line, k++, fit, old[0] as string, bare[at] as string, floor);
      if (framed === undefined) return undefined;
      if (paired && fit.trailing)
        framed += droppedTail(
          bare[at + j - part.value.length + q] as string,
          old[j - part.value.length + q] as string,
          framed,
        );
      out.push(framed + cr);
    }
  }
  // The block ran to the end of a file without a final newline: so does the replacement.
  const lastRaw = raw[at + old.length - 1] as string;
  if (at + old.length === raw.length && !lastRaw.endsWith('\r') && out.length > 0) {
    out[out.length - 1] = (out.at(-1) as string).replace(/\r$/, '');
  }
  return out;
}
