/**
 * Applying an Update File's chunks to a file's text. Each chunk is found after the previous one:
 * exactly first (the first occurrence, as Codex's seek_sequence does), else through the edit matcher
 * (lib/edit/), which tolerates only differences that cannot change meaning and applies only when
 * exactly one block fits. Context lines keep the file's own bytes; '+' lines take the file's line
 * ending, and when the chunk matched loosely, its indentation shift and character fixes. Pure.
 */
import { errValue, okValue, type Result } from '../core/result.ts';
import { type Fit, fileLines, searchBlocks } from './block.ts';
import { explainAmbiguous, explainMiss } from './explain.ts';
import { tolerated } from './match.ts';
import { lineKey, lostChars } from './normalize.ts';
import type { Chunk } from './patch.ts';
import { frameLine, leftFloor } from './rewrite.ts';

interface Patched {
  text: string;
  /** Every anchor, context and '-' line matched the file exactly: the patch shows its author saw it. */
  exact: boolean;
  /** What loose matches tolerated, per chunk. */
  notes: string[];
  /** A chunk whose lines also match exactly further on (applied at the first, as Codex does). */
  twice?: string;
}

const bare = (l: string) => (l.endsWith('\r') ? l.slice(0, -1) : l);

export function applyChunks(text: string, chunks: readonly Chunk[], shown: string): Result<Patched, string> {
  const endsWithNl = text.endsWith('\n');
  const lines = (endsWithNl ? text.slice(0, -1) : text).split('\n');
  if (text === '') lines.length = 0;
  const crlf = lines.length > 0 && lines.every((l, k) => l.endsWith('\r') || (k === lines.length - 1 && !endsWithNl));
  let cursor = 0;
  let exact = true;
  let twice: string | undefined;
  const notes: string[] = [];
  for (const [n, c] of chunks.entries()) {
    const label = `chunk ${n + 1} (patch line ${c.at}) of ${JSON.stringify(shown)}`;
    if (c.anchor !== undefined) {
      let a = lines.findIndex((l, i) => i >= cursor && bare(l) === c.anchor);
      if (a === -1) {
        exact = false;
        const key = lineKey(c.anchor);
        a = lines.findIndex((l, i) => i >= cursor && lineKey(l) === key);
        // Loosely, the @@ line must fit one place only: the first of two is a guess.
        const b = a === -1 ? -1 : lines.findIndex((l, i) => i > a && lineKey(l) === key);
        if (b !== -1)
          return errValue(
            `${label}: the @@ line ${JSON.stringify(c.anchor)} is not in the file exactly, and up to whitespace and typography it fits lines ${a + 1} and ${b + 1} (at least), so the patch was not applied. Copy the @@ line exactly as read_file shows it.`,
          );
      }
      if (a === -1)
        return errValue(`${label}: the @@ line ${JSON.stringify(c.anchor)} was not found after line ${cursor}.`);
      cursor = a + 1;
    }
    let at = c.anchor !== undefined ? cursor : lines.length; // a pure addition goes after its anchor, or at the end
    let fit: Fit | undefined;
    if (c.old.length > 0) {
      at = seekExact(lines, c.old, cursor, c.eof);
      const again = at === -1 || c.eof ? -1 : seekExact(lines, c.old, at + 1, false);
      if (again !== -1)
        twice ??= `${label} matches exactly at lines ${at + 1}–${at + c.old.length} and ${again + 1}–${again + c.old.length}`;
      if (at === -1) {
        exact = false;
        const file = fileLines(lines.map(bare));
        const { fits, near } = searchBlocks(file, c.old, { from: cursor, eof: c.eof });
        const where = `(searched from line ${cursor + 1}${c.eof ? ', at the end of the file' : ''})`;
        if (fits.length === 0)
          return errValue(
            `${label}: the lines to replace were not found ${where}. ${explainMiss(file, c.old, 'patch', shown)}Read the file and make the context and '-' lines exact.`,
          );
        fit = fits[0] as Fit;
        if (fits.length > 1 || near.length > 0)
          return errValue(
            `${label}: the lines to replace were not found exactly ${where}. ${explainAmbiguous(fits, near, c.old.length, tolerated(fit))}`,
          );
        at = fit.at;
        notes.push(`chunk ${n + 1} matched ignoring ${tolerated(fit)} at line ${at + 1}`);
      }
    }
    const replaced: string[] = [];
    let o = at;
    let k = 0; // index into c.new
    const floor = fit ? leftFloor(fit, lines.slice(at, at + c.old.length).map(bare)) : undefined;
    const unsure = `${label}: the lines to replace fit lines ${at + 1}–${at + c.old.length} only ignoring differences, and a '+' line cannot be placed there for sure (it would land left of the block's indentation, or a '-' line would lose \\", non-breaking spaces or curly quotes the file has). Read the file and copy the context and '-' lines exactly.`;
    for (const tag of c.tags) {
      if (tag === ' ') replaced.push(lines[o++] as string);
      else if (tag === '-') {
        // A '-' line is c.old's line o - at: its file line's \" or NBSP gone from the '+' lines the model wrote.
        if (fit && c.tags.includes('+') && lostChars(bare(lines[o] as string), c.old[o - at] as string).length > 0)
          return errValue(unsure);
        o++;
      } else {
        const line = c.new[k] as string;
        const framed = fit ? frameLine(line, k, fit, c.old[0] as string, bare(lines[at] as string), floor) : line;
        if (framed === undefined) return errValue(unsure);
        replaced.push(crlf ? `${framed}\r` : framed);
      }
      if (tag !== '-') k++;
    }
    lines.splice(at, c.old.length, ...replaced);
    cursor = at + replaced.length;
  }
  const out = lines.length === 0 ? '' : `${lines.join('\n')}${endsWithNl || text === '' ? '\n' : ''}`;
  return okValue({ text: out, exact, notes, ...(twice ? { twice } : {}) });
}

/** The first exact occurrence of `seq` (lines compared without CR) at or after `from`, or -1. */
function seekExact(lines: readonly string[], seq: readonly string[], from: number, eof: boolean): number {
  const last = lines.length - seq.length;
  for (let i = eof ? last : from; i <= last; i++) {
    if (i < from) break;
    let all = true;
    for (let k = 0; k < seq.length && all; k++) all = bare(lines[i + k] as string) === seq[k];
    if (all) return i;
  }
  return -1;
}
