/**
 * Indentation between a block of the file and old_string: whether it differs by one uniform shift
 * (in columns, tabs counted at some width), which keeps the block's meaning even in Python, and how
 * to give a line the model wrote in new_string the same shift, in the file's own indentation style.
 */

/** A uniform indentation shift from old_string to the file. */
export interface Shift {
  /** No line's indentation differs (first-line exemption aside). */
  same: boolean;
  /** Columns the file has more than old_string (negative: fewer). */
  delta: number;
  /** Tab width the columns were counted at. */
  unit: number;
  /** The file block indents with tabs. */
  tabs: boolean;
  /** old_string's first line had no indentation where the file's has this (the model started mid-line). */
  firstLead?: string;
  /** old_string indents with tabs where the file uses spaces, or the other way round. */
  swapped: boolean;
}

export const leadOf = (s: string): string => s.slice(0, s.length - s.trimStart().length);

export function columns(ws: string, unit: number): number {
  let c = 0;
  for (const ch of ws) c = ch === '\t' ? c + unit - (c % unit) : c + 1;
  return c;
}

/** Leading whitespace of (file line, old_string line) for each non-blank line, with its index. */
export interface LeadPair {
  j: number;
  f: string;
  o: string;
}

/** The uniform shift that explains every pair, or undefined when the indentation differs unevenly. */
export function findShift(pairs: readonly LeadPair[], m: number): Shift | undefined {
  const p0 = pairs[0];
  const whole = uniform(pairs, undefined);
  if (whole) return whole;
  // The first line alone may lack its indentation (old_string started mid-line).
  const exempt = m > 1 && pairs.length > 1 && p0?.j === 0 && p0.o === '' && p0.f !== '';
  if (!exempt) return undefined;
  // Then the other lines are in the file's frame (tabs for spaces at most): a first line without its
  // indentation and the rest shifted too leaves no frame to place a written line in for sure.
  const rest = uniform(pairs.slice(1), p0.f);
  return rest?.delta === 0 ? rest : undefined;
}

function uniform(rest: readonly LeadPair[], firstLead: string | undefined): Shift | undefined {
  const base = firstLead !== undefined ? { firstLead } : {};
  const tabs = rest.some((p) => p.f.includes('\t'));
  const swapped = rest.some((p) => p.f.includes('\t') !== p.o.includes('\t') && (p.f + p.o).includes(' '));
  if (rest.every((p) => p.f === p.o)) return { same: true, delta: 0, unit: 4, tabs, swapped: false, ...base };
  // Tabs for spaces with no shift in depth is the likelier reading: try a width that makes the delta 0 first.
  const units = [4, 2, 8, 3];
  const even = (unit: number, delta: number) => rest.every((p) => columns(p.f, unit) - columns(p.o, unit) === delta);
  const flat = units.find((u) => even(u, 0));
  if (flat !== undefined) return { same: false, delta: 0, unit: flat, tabs, swapped, ...base };
  for (const unit of units) {
    const first = rest[0] as LeadPair;
    const delta = columns(first.f, unit) - columns(first.o, unit);
    if (even(unit, delta)) return { same: false, delta, unit, tabs, swapped, ...base };
  }
  return undefined;
}

/**
 * A line the model wrote at old_string's indentation, moved to the file's; undefined when the shift
 * would take it left of column 0 — new_string then is not in any frame the file has (in Python,
 * pinning it to column 0 would move it out of its block).
 */
export function shiftLine(line: string, s: Shift): string | undefined {
  if (s.same) return line;
  const body = line.trimStart();
  if (body === '') return line;
  const col = columns(leadOf(line), s.unit) + s.delta;
  return col < 0 ? undefined : render(col, s) + body;
}

function render(col: number, s: Shift): string {
  if (!s.tabs) return ' '.repeat(col);
  return '\t'.repeat(Math.floor(col / s.unit)) + ' '.repeat(col % s.unit);
}

/** "2 spaces less", "tabs for spaces", "the first line's indentation" — what the shift tolerated. */
export function describeShift(s: Shift): string {
  const parts: string[] = [];
  if (s.firstLead !== undefined) parts.push("the first line's missing indentation");
  if (!s.same) {
    if (s.swapped) parts.push(s.tabs ? 'spaces for tabs' : 'tabs for spaces');
    const n = Math.abs(s.delta);
    if (n > 0) {
      const amount =
        s.tabs && n % s.unit === 0
          ? `${n / s.unit} tab${n / s.unit === 1 ? '' : 's'}`
          : `${n} space${n === 1 ? '' : 's'}`;
      parts.push(`${amount} ${s.delta > 0 ? 'less' : 'more'}`);
    }
  }
  return parts.join(', ');
}
