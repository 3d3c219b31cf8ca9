/**
 * The lines that replace a fitted block. new_string is aligned line by line with old_string: a line
 * the model left unchanged keeps the file's own bytes (its indentation, trailing whitespace, quotes,
 * line ending); a line it wrote gets the fit's indentation shift and character fixes, because it
 * wrote it in old_string's frame.
 */
import { diffArrays } from 'diff';
import type { Fit } from './block.ts';
import { leadOf, shiftLine } from './indent.ts';
import { applyFixes } from './normalize.ts';

const tail = (s: string) => s.slice(s.trimEnd().length);

/** The file line's trailing whitespace when old_string's line and the new line both lack any. */
function droppedTail(file: string, oldLine: string, framed: string): string {
  return tail(oldLine) === '' && tail(framed) === '' ? tail(file) : '';
}

/** A line new_string wrote, moved into the file's frame; `k` is its index in new_string. */
export function frameLine(line: string, k: number, fit: Fit, old0: string, file0: string): string {
  const fixed = applyFixes(line, fit.fixes);
  // A first line whose indentation old_string had dropped: new_string either dropped it too (give it
  // the file's) or wrote the file's own (keep it).
  if (k === 0 && leadOf(old0) === '' && leadOf(file0) !== '') {
    const lead = leadOf(fixed);
    if (lead === leadOf(file0)) return fixed;
    if (lead === '' && (fit.shift.firstLead !== undefined || fit.shift.same)) return leadOf(file0) + fixed;
  }
  return shiftLine(fixed, fit.shift);
}

/**
 * The file's raw lines (CR kept) for the block at `fit.at` of old_string's length, replaced by
 * new_string's lines.
 */
export function replaceBlock(
  raw: readonly string[],
  bare: readonly string[],
  fit: Fit,
  old: readonly string[],
  neu: readonly string[],
): string[] {
  const at = fit.at;
  const cr = (raw[at] as string).endsWith('\r') ? '\r' : '';
  const out: string[] = [];
  let j = 0;
  let k = 0;
  // new_string's first line written with the file's indentation but otherwise old_string's is the
  // unchanged line (old_string had dropped that indentation): align it as such.
  const first = neu[0] as string;
  const aligned = first !== old[0] && first.trimStart() === old[0] && leadOf(first) === leadOf(bare[at] as string);
  const parts = diffArrays([...old], aligned ? [old[0] as string, ...neu.slice(1)] : [...neu]);
  for (const [n, part] of parts.entries()) {
    if (part.removed) {
      j += part.value.length;
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
      let framed = frameLine(line, k++, fit, old[0] as string, bare[at] as string);
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
