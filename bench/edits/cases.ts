/**
 * The edit corpus: for each source file and mistake kind, a block of whole lines that occurs once in
 * the file, an intended change to it (a line changed, a line inserted at its neighbour's indentation,
 * or a line deleted), the file as intended, and old_string/new_string as a model with that mistake
 * would send them. Refusal kinds carry no intended text, only the place(s) a refusal should name.
 * Ambiguity cases add a copy of the block elsewhere (re-indented or not).
 */
import { baseKind, REFUSE, type Sent, TOLERATED } from './mistakes.ts';
import type { Rng } from './prng.ts';
import type { Source } from './sources.ts';

export interface Case {
  kind: string;
  file: string;
  text: string;
  old: string;
  neu: string;
  /** The file as the model meant it; undefined when the edit must be refused. */
  intended?: string;
  /** 1-based line ranges a refusal should name first (ambiguity: any of them). */
  places: [number, number][];
}

const lead = (s: string) => s.slice(0, s.length - s.trimStart().length);
const bareOf = (l: string) => (l.endsWith('\r') ? l.slice(0, -1) : l);

interface Block {
  start: number;
  old: string[];
  neu: string[];
  intended: string;
}

/** A unique block of `len` lines and an intended change to it, or undefined after a few tries. */
function pickBlock(
  raw: readonly string[],
  lf: string,
  r: Rng,
  min: number,
  want?: (b: string[]) => boolean,
): Block | undefined {
  const bare = raw.map(bareOf);
  for (let tries = 0; tries < (want ? 400 : 60); tries++) {
    const len = min + r.int(6);
    const start = r.int(Math.max(1, bare.length - len));
    const old = bare.slice(start, start + len);
    if (old.length < len || old[0]?.trim() === '' || old.at(-1)?.trim() === '') continue;
    if (old.some((l) => l.length > 160) || (want && !want(old))) continue;
    const text = old.join('\n');
    const at = lf.indexOf(text);
    if (lf.indexOf(text, at + 1) !== -1) continue;
    const neu = intend(old, r);
    if (!neu || neu.join('\n') === text) continue;
    const cr = raw[start]?.endsWith('\r') ? '\r' : '';
    const newRaw = neu.map((l, k) => {
      const j = old.indexOf(l);
      return j !== -1 && k - j <= 1 && j - k <= 1 ? (raw[start + j] as string) : l + cr;
    });
    const intended = [...raw.slice(0, start), ...newRaw, ...raw.slice(start + len)].join('\n');
    return { start, old, neu, intended };
  }
  return undefined;
}

/** The block as the model means it to become, written in the file's frame. */
function intend(old: readonly string[], r: Rng): string[] | undefined {
  const op = r.int(3);
  const i = r.int(old.length);
  const line = old[i] as string;
  if (op === 0 && /\w/.test(line)) {
    const changed = line.replace(/(\w+)(\W*)$/, '$1Edited$2');
    return old.map((l, k) => (k === i ? changed : l));
  }
  if (op === 1 || old.length < 3) {
    const added = `${lead(line)}addedLine${r.int(1000)}();`;
    return [...old.slice(0, i + 1), added, ...old.slice(i + 1)];
  }
  const d = 1 + r.int(old.length - 2);
  return old.filter((_, k) => k !== d);
}

const BLOCK_NEEDS: Record<string, { min: number; want?: (b: string[]) => boolean }> = {
  'first-line indent dropped': { min: 2, want: (b) => lead(b[0] as string) !== '' },
  'exact, partial first/last line': { min: 2, want: (b) => lead(b[0] as string) !== '' },
  'trailing ws dropped': { min: 1, want: (b) => b.some((l) => l !== l.trimEnd()) },
  elision: { min: 5 },
  'blank line dropped': { min: 3, want: (b) => b.slice(1, -1).some((l) => l.trim() === '') },
  'literal \\n one-liner': { min: 2 },
};

/**
 * Whether `s` occurs in `lf` starting on another line than `start` (0-based) — also one overlapping
 * the block: a block of closing braces shifted left is, word for word, the block one line below.
 */
function elsewhere(lf: string, s: string, start: number): boolean {
  for (let i = lf.indexOf(s); i !== -1; i = lf.indexOf(s, i + 1)) {
    let line = 0;
    for (let k = lf.indexOf('\n'); k !== -1 && k < i; k = lf.indexOf('\n', k + 1)) line++;
    if (line !== start) return true;
  }
  return false;
}

/** Mistakes that produced another real place's exact text: no matcher can tell them from a right edit. */
const EXACT_BY_DESIGN = new Set([
  'exact',
  'exact, partial first/last line',
  'first-line indent dropped',
  'trailing ws dropped',
]);

/**
 * Up to `per` cases of each kind from one source. A mistaken old_string that is, by chance, the exact
 * text of another place in the file is left out (counted in `skipped`): it is a right edit of that place.
 */
export function casesFor(src: Source, r: Rng, per: number, skipped: Record<string, number> = {}): Case[] {
  const raw = src.text.split('\n');
  const lf = src.text.replace(/\r\n/g, '\n');
  const out: Case[] = [];
  const kinds = { ...TOLERATED, ...REFUSE };
  for (const [kind, transform] of Object.entries(kinds)) {
    const base = baseKind(kind);
    const needs = BLOCK_NEEDS[base] ?? { min: 1 };
    for (let n = 0; n < per; n++) {
      const b = pickBlock(raw, lf, r, needs.min, needs.want);
      if (!b) break;
      const sent: Sent | undefined = transform({ old: b.old, neu: b.neu, line: b.start + 1 }, r);
      if (!sent || sent.old === sent.neu) continue;
      // A control must be one exact occurrence; a cut-down partial line may occur twice.
      if (kind.startsWith('exact') && lf.indexOf(sent.old) !== lf.lastIndexOf(sent.old)) continue;
      if (!EXACT_BY_DESIGN.has(base) && elsewhere(lf, sent.old, b.start)) {
        skipped[kind] = (skipped[kind] ?? 0) + 1;
        continue;
      }
      const places: [number, number][] = [[b.start + 1, b.start + b.old.length]];
      const refuse = kind in REFUSE;
      out.push({
        kind,
        file: src.name,
        text: src.text,
        ...sent,
        ...(refuse ? {} : { intended: b.intended }),
        places,
      });
    }
  }
  for (let n = 0; n < per; n++) {
    const c = ambiguous(raw, lf, r, src.name);
    if (c) out.push(c);
  }
  return out;
}

/** The block copied elsewhere (as is, or 4 more spaces in): whichever old_string says, refuse. */
function ambiguous(raw: readonly string[], lf: string, r: Rng, file: string): Case | undefined {
  const b = pickBlock(raw, lf, r, 2);
  if (!b) return undefined;
  const cr = raw[b.start]?.endsWith('\r') ? '\r' : '';
  const indent = r.next() < 0.5 ? '' : '    ';
  const copy = b.old.map((l) => (l.trim() === '' ? l : indent + l) + cr);
  let at = r.int(raw.length);
  if (at > b.start && at < b.start + b.old.length) at = b.start;
  const text = [...raw.slice(0, at), ...copy, ...raw.slice(at)].join('\n');
  const mine = at <= b.start ? b.start + copy.length : b.start;
  const places: [number, number][] = [
    [mine + 1, mine + b.old.length],
    [at + 1, at + copy.length],
  ];
  // As is: the model copied the text exactly; re-indented: it dropped trailing whitespace or added some.
  const old = indent === '' ? b.old.join('\n') : b.old.map((l, k) => (k === 0 ? `${l} ` : l)).join('\n');
  return { kind: 'ambiguous (block duplicated)', file, text, old, neu: b.neu.join('\n'), places };
}
