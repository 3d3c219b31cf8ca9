/**
 * The mistakes a model makes in old_string (and, writing in the same frame, in new_string), as
 * transforms of the intended edit's lines. `tolerated` kinds have one right result (the matcher must
 * undo the mistake); `refuse` kinds change meaning or leave the place open (the matcher must refuse
 * and name the place). Each transform returns undefined when the block does not suit it.
 *
 * A whitespace mistake comes in two variants, because models make both: `[old only]`, where only
 * old_string carries it and new_string is written at the file's true whitespace, and `[both]`, where
 * new_string carries it the same way. The matcher cannot know which from old_string alone.
 */
import type { Rng } from './prng.ts';

export interface Edit {
  /** The block as the file has it (no CR) and the intended new lines, in the file's frame. */
  old: string[];
  neu: string[];
  /** 1-based first line of the block. */
  line: number;
}

export interface Sent {
  old: string;
  neu: string;
}

type Transform = (e: Edit, r: Rng) => Sent | undefined;
/** A whitespace mistake; `both` says whether new_string carries it too. */
type Whitespace = (e: Edit, r: Rng, both: boolean) => Sent | undefined;

const lead = (s: string) => s.slice(0, s.length - s.trimStart().length);
const join = (ls: readonly string[]) => ls.join('\n');
const both = (e: Edit, f: (l: string) => string): Sent => ({ old: join(e.old.map(f)), neu: join(e.neu.map(f)) });
/** old_string's lines through `f`; new_string's too when `twice`, else as the file's frame has them. */
const sent = (e: Edit, f: (l: string) => string, twice: boolean): Sent =>
  twice ? both(e, f) : { old: join(e.old.map(f)), neu: join(e.neu) };
const nonBlank = (ls: readonly string[]) => ls.filter((l) => l.trim() !== '');

function shiftBy(e: Edit, r: Rng, twice: boolean): Sent | undefined {
  const tabs = nonBlank(e.old).some((l) => l.startsWith('\t'));
  const unit = tabs ? '\t' : r.pick(['  ', '    ']);
  if (r.next() < 0.5) return sent(e, (l) => (l.trim() === '' ? l : unit + l), twice);
  if (!nonBlank([...e.old, ...e.neu]).every((l) => l.startsWith(unit))) return undefined;
  return sent(e, (l) => (l.startsWith(unit) ? l.slice(unit.length) : l), twice);
}

function tabsSpaces(e: Edit, r: Rng, twice: boolean): Sent | undefined {
  const leads = nonBlank(e.old).map(lead);
  if (!leads.some((l) => l !== '')) return undefined;
  if (leads.some((l) => l.includes('\t'))) {
    if (leads.some((l) => l.includes(' '))) return undefined;
    const w = ' '.repeat(r.pick([2, 4]));
    return sent(e, (l) => lead(l).replace(/\t/g, w) + l.trimStart(), twice);
  }
  const u = leads.every((l) => l.length % 4 === 0) ? 4 : leads.every((l) => l.length % 2 === 0) ? 2 : 0;
  if (u === 0) return undefined;
  return sent(e, (l) => '\t'.repeat(lead(l).length / u) + l.trimStart(), twice);
}

function typographic(e: Edit): Sent | undefined {
  const s = join(e.old);
  if (!/["']| - /.test(s) || /[\u2018-\u201f\u2013\u2014]/.test(s)) return undefined;
  return both(e, (l) => {
    let open = true;
    return l
      .replace(/"/g, () => {
        open = !open;
        return open ? '\u201d' : '\u201c';
      })
      .replace(/'/g, '\u2019')
      .replace(/ - /g, ' \u2013 ');
  });
}

function invisible(e: Edit): Sent | undefined {
  if (!nonBlank(e.old).some((l) => /\S \S/.test(l))) return undefined;
  // By content, so an unchanged line reads the same in old_string and new_string.
  return both(e, (l) => l.replace(/(\S) (\S)/, '$1\u00a0$2').replace(/^(\s*\S)/, '$1\u200b'));
}

function escaped(e: Edit): Sent | undefined {
  const s = join(e.old);
  if (!s.includes('"') || s.includes('\\')) return undefined;
  return both(e, (l) => l.replace(/"/g, '\\"'));
}

function literalNewlines(e: Edit): Sent | undefined {
  if (e.old.length < 2 || join([...e.old, ...e.neu]).includes('\\')) return undefined;
  const one = (ls: readonly string[]) => ls.join('\\n').replace(/\t/g, '\\t');
  return { old: one(e.old), neu: one(e.neu) };
}

function firstIndent(e: Edit, _r: Rng, twice: boolean): Sent | undefined {
  if (e.old.length < 2 || lead(e.old[0] as string) === '') return undefined;
  const old = [(e.old[0] as string).trimStart(), ...e.old.slice(1)];
  const neu = twice ? [(e.neu[0] as string).trimStart(), ...e.neu.slice(1)] : e.neu;
  return { old: join(old), neu: join(neu) };
}

/** A control: old_string starts after the first line's indentation and stops before the last line's end. */
function partialLines(e: Edit): Sent | undefined {
  const [o0, n0, oz, nz] = [e.old[0], e.neu[0], e.old.at(-1), e.neu.at(-1)] as string[];
  if (e.old.length < 2 || lead(o0 as string) === '' || lead(o0 as string) !== lead(n0 as string)) return undefined;
  if (oz !== nz || (oz as string).trimEnd().length < 2) return undefined;
  const cut = (ls: readonly string[]) => [
    (ls[0] as string).trimStart(),
    ...ls.slice(1, -1),
    (ls.at(-1) as string).trimEnd().slice(0, -1),
  ];
  return { old: join(cut(e.old)), neu: join(cut(e.neu)) };
}

function elide(e: Edit, r: Rng): Sent | undefined {
  if (e.old.length < 5) return undefined;
  const a = 1 + r.int(e.old.length - 3);
  const b = a + 1 + r.int(e.old.length - 1 - a);
  const mark = `${lead(e.old[a] as string)}${r.pick(['// ... existing code ...', '...', '# ...', '…'])}`;
  const cut = (ls: readonly string[]) => [...ls.slice(0, a), mark, ...ls.slice(b)];
  if (e.neu.length !== e.old.length) return undefined; // keep the elided stretch the same in both
  return { old: join(cut(e.old)), neu: join(cut(e.neu)) };
}

function blankDropped(e: Edit): Sent | undefined {
  const i = e.old.findIndex((l, k) => k > 0 && k < e.old.length - 1 && l.trim() === '');
  if (i === -1) return undefined;
  const j = e.neu.indexOf(e.old[i] as string);
  return { old: join(e.old.filter((_, k) => k !== i)), neu: join(e.neu.filter((_, k) => k !== j)) };
}

function blankAdded(e: Edit, r: Rng): Sent | undefined {
  if (e.old.length < 2) return undefined;
  const i = 1 + r.int(e.old.length - 1);
  const add = (ls: readonly string[], at: number) => [...ls.slice(0, at), '', ...ls.slice(at)];
  const j = e.neu.indexOf(e.old[i] as string);
  return { old: join(add(e.old, i)), neu: join(j === -1 ? e.neu : add(e.neu, j)) };
}

function changedToken(e: Edit, r: Rng): Sent | undefined {
  const cands = e.old.map((l, i) => ({ l, i })).filter((x) => /[A-Za-z_]\w{2,}/.test(x.l));
  if (cands.length === 0) return undefined;
  const { l, i } = r.pick(cands);
  const words = [...l.matchAll(/[A-Za-z_]\w{2,}/g)];
  const w = r.pick(words);
  const word = w[0] as string;
  const swap = r.pick(['q', 'Z', '2'].filter((ch) => !word.endsWith(ch)));
  const changed = `${l.slice(0, w.index)}${word.slice(0, -1)}${swap}${l.slice((w.index as number) + word.length)}`;
  const old = e.old.map((x, k) => (k === i ? changed : x));
  return { old: join(old), neu: join(e.neu.map((x) => (x === l ? changed : x))) };
}

function trailingDropped(e: Edit, _r: Rng, twice: boolean): Sent | undefined {
  if (!e.old.some((l) => l !== l.trimEnd())) return undefined;
  return sent(e, (l) => l.trimEnd(), twice);
}

/**
 * For each of new_string's lines, the old_string line it was copied (or changed in place) from, or -1
 * for an inserted line: the intended edit changes, inserts or deletes one line.
 */
function origins(e: Edit): number[] {
  const d = e.neu.length - e.old.length;
  let at = e.neu.findIndex((l, k) => l !== e.old[k]);
  if (at === -1) at = e.neu.length;
  return e.neu.map((_, k) => (d === 0 || k < at ? k : d > 0 ? (k === at ? -1 : k - 1) : k + 1));
}

function trailingAdded(e: Edit, r: Rng, twice: boolean): Sent | undefined {
  const pad = r.pick([' ', '  ', '\t']);
  const padded = new Set(e.old.map((_, k) => k).filter((k) => k === e.old.length - 1 || r.next() < 0.3));
  const old = join(e.old.map((l, k) => (padded.has(k) ? l + pad : l)));
  if (!twice) return { old, neu: join(e.neu) };
  // new_string pads what it copied from a padded line: an unchanged line, and a line changed in place.
  const from = origins(e);
  return { old, neu: join(e.neu.map((l, k) => (padded.has(from[k] as number) ? l + pad : l))) };
}

function lineNumbers(e: Edit): Sent {
  return { old: join(e.old.map((l, k) => `${String(e.line + k).padStart(6)}\t${l}`)), neu: join(e.neu) };
}

const WHITESPACE: Record<string, Whitespace> = {
  'first-line indent dropped': firstIndent,
  'trailing ws dropped': trailingDropped,
  'trailing ws added': trailingAdded,
  'indent shifted': shiftBy,
  'tabs <-> spaces': tabsSpaces,
};

/** A kind without its variant: "indent shifted [both]" → "indent shifted". */
export const baseKind = (kind: string): string => kind.replace(/ \[[^\]]*\]$/, '');

const variants = Object.fromEntries(
  Object.entries(WHITESPACE).flatMap(([k, f]): [string, Transform][] => [
    [`${k} [old only]`, (e, r) => f(e, r, false)],
    [`${k} [both]`, (e, r) => f(e, r, true)],
  ]),
);

export const TOLERATED: Record<string, Transform> = {
  exact: (e) => ({ old: join(e.old), neu: join(e.neu) }),
  'exact, partial first/last line': partialLines,
  ...variants,
  'typographic quotes/dashes': typographic,
  'NBSP / zero-width': invisible,
  '\\" escaping': escaped,
  'literal \\n one-liner': literalNewlines,
  'line-number prefixes': lineNumbers,
};

export const REFUSE: Record<string, Transform> = {
  elision: elide,
  'blank line dropped': blankDropped,
  'blank line added': blankAdded,
  'changed token': changedToken,
};
