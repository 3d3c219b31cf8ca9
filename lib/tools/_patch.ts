/**
 * The V4A patch envelope (Codex's apply_patch format): parsing into operations, and applying an
 * Update File's chunks to a file's text. Pure functions; apply_patch does the I/O.
 *
 *   *** Begin Patch
 *   *** Add File: path        then lines starting with +
 *   *** Delete File: path
 *   *** Update File: path     optionally *** Move to: path, then chunks:
 *   @@ optional anchor line   then ' ' context, '-' removed, '+' added lines; *** End of File pins to the end
 *   *** End Patch
 */
import { errValue, okValue, type Result } from '../core/result.ts';
import { explainNoMatch } from './_edit_match.ts';

export interface Chunk {
  anchor?: string;
  old: string[];
  new: string[];
  /** The chunk's lines in order: ' ' context, '-' removed, '+' added. */
  tags: string;
  /** The old lines must be the last lines of the file. */
  eof: boolean;
  /** 1-based line of the chunk in the patch, for messages. */
  at: number;
}

export type PatchOp =
  | { kind: 'add'; path: string; content: string }
  | { kind: 'delete'; path: string }
  | { kind: 'update'; path: string; moveTo?: string; chunks: Chunk[] };

/** The patch's operations, or what is wrong with it. */
export type Parsed = Result<PatchOp[], string>;

const HEADER = /^\*\*\* (Add File|Delete File|Update File|Move to): (.+)$/;

export function parsePatch(patch: string): Parsed {
  const lines = patch.replace(/\r\n/g, '\n').split('\n');
  while (lines.length && lines[0]?.trim() === '') lines.shift();
  while (lines.length && lines.at(-1)?.trim() === '') lines.pop();
  if (lines[0]?.trim() !== '*** Begin Patch') return errValue('the patch must start with "*** Begin Patch"');
  if (lines.at(-1)?.trim() !== '*** End Patch') return errValue('the patch must end with "*** End Patch"');
  const ops: PatchOp[] = [];
  const bad = (i: number, why: string): Parsed => errValue(`patch line ${i + 1}: ${why}`);
  let i = 1;
  const end = lines.length - 1;
  while (i < end) {
    const line = lines[i] as string;
    const h = HEADER.exec(line);
    if (!h)
      return bad(
        i,
        `expected "*** Add File:", "*** Delete File:" or "*** Update File:", found ${JSON.stringify(line.slice(0, 60))}`,
      );
    const [, kind, rawPath] = h;
    const p = (rawPath as string).trim();
    i++;
    if (kind === 'Add File') {
      const content: string[] = [];
      while (i < end && !lines[i]?.startsWith('*** ')) {
        const l = lines[i] as string;
        if (!l.startsWith('+')) return bad(i, `a line of an added file must start with "+"`);
        content.push(l.slice(1));
        i++;
      }
      ops.push({ kind: 'add', path: p, content: content.length ? `${content.join('\n')}\n` : '' });
    } else if (kind === 'Delete File') {
      ops.push({ kind: 'delete', path: p });
    } else if (kind === 'Update File') {
      const op: PatchOp & { kind: 'update' } = { kind: 'update', path: p, chunks: [] };
      const move = HEADER.exec(lines[i] ?? '');
      if (move?.[1] === 'Move to') {
        op.moveTo = (move[2] as string).trim();
        i++;
      }
      let chunk: Chunk | undefined;
      while (i < end && !(lines[i]?.startsWith('*** ') && lines[i] !== '*** End of File')) {
        const l = lines[i] as string;
        if (l.startsWith('@@')) {
          const anchor = l.slice(2).trim();
          chunk = { old: [], new: [], tags: '', eof: false, at: i + 1, ...(anchor ? { anchor } : {}) };
          op.chunks.push(chunk);
        } else if (l === '*** End of File') {
          if (!chunk) return bad(i, '"*** End of File" before any change');
          chunk.eof = true;
        } else {
          if (!chunk) {
            chunk = { old: [], new: [], tags: '', eof: false, at: i + 1 };
            op.chunks.push(chunk);
          }
          const tag = l[0];
          const body = l.slice(1);
          // An empty line is an empty context line (editors and models drop the lone space).
          if (tag === ' ' || l === '') {
            chunk.old.push(body);
            chunk.new.push(body);
            chunk.tags += ' ';
          } else if (tag === '-') {
            chunk.old.push(body);
            chunk.tags += '-';
          } else if (tag === '+') {
            chunk.new.push(body);
            chunk.tags += '+';
          } else
            return bad(i, `a change line must start with " ", "-" or "+", found ${JSON.stringify(l.slice(0, 60))}`);
        }
        i++;
      }
      if (op.chunks.length === 0 && !op.moveTo) return bad(i, `"*** Update File: ${p}" has no changes`);
      ops.push(op);
    } else {
      return bad(i - 1, '"*** Move to:" must follow "*** Update File:"');
    }
  }
  if (ops.length === 0) return errValue('the patch changes no file');
  return okValue(ops);
}

/** The paths an operation touches, in order (a move's destination after its source). */
export const opPaths = (op: PatchOp): string[] =>
  op.kind === 'update' && op.moveTo ? [op.path, op.moveTo] : [op.path];

/** The patched text, or why a chunk did not apply. */
export type Applied = Result<string, string>;

/**
 * Applies an update's chunks in order. Lines are compared without their CR; each chunk is found
 * after the previous one — exactly, else ignoring trailing whitespace, else ignoring surrounding
 * whitespace — and its new lines take the file's line ending.
 */
export function applyChunks(text: string, chunks: readonly Chunk[], shown: string): Applied {
  const endsWithNl = text.endsWith('\n');
  const lines = (endsWithNl ? text.slice(0, -1) : text).split('\n');
  if (text === '') lines.length = 0;
  const crlf = lines.length > 0 && lines.every((l, k) => l.endsWith('\r') || (k === lines.length - 1 && !endsWithNl));
  const bare = (l: string) => (l.endsWith('\r') ? l.slice(0, -1) : l);
  let cursor = 0;
  for (const [n, c] of chunks.entries()) {
    const label = `chunk ${n + 1} (patch line ${c.at}) of ${JSON.stringify(shown)}`;
    if (c.anchor !== undefined) {
      const a = findSeq(lines, [c.anchor], cursor, false, bare);
      if (a === -1)
        return errValue(`${label}: the @@ line ${JSON.stringify(c.anchor)} was not found after line ${cursor}.`);
      cursor = a + 1;
    }
    let at: number;
    if (c.old.length === 0) {
      at = c.anchor !== undefined ? cursor : lines.length; // a pure addition goes after its anchor, or at the end
    } else {
      at = findSeq(lines, c.old, cursor, c.eof, bare);
      if (at === -1) {
        const why = explainNoMatch(
          lines.slice(cursor).map(bare).join('\n'),
          c.old.join('\n'),
          shown,
          'the lines to replace',
        );
        return errValue(
          `${label}: ${why.replace(/ Copy the text exactly.*$/, '')} (searched from line ${cursor + 1}${c.eof ? ', at the end of the file' : ''}). Read the file and make the context lines exact.`,
        );
      }
    }
    // Context lines keep the file's own text (they matched, perhaps up to whitespace); only '+'
    // lines come from the patch, with the file's line ending.
    const replaced: string[] = [];
    let o = at;
    let k = 0; // index into c.new
    for (const tag of c.tags) {
      if (tag === ' ') replaced.push(lines[o++] as string);
      else if (tag === '-') o++;
      else replaced.push(crlf ? `${c.new[k]}\r` : (c.new[k] as string));
      if (tag !== '-') k++;
    }
    lines.splice(at, c.old.length, ...replaced);
    cursor = at + replaced.length;
  }
  if (lines.length === 0) return okValue('');
  return okValue(`${lines.join('\n')}${endsWithNl || text === '' ? '\n' : ''}`);
}

function findSeq(
  lines: readonly string[],
  seq: readonly string[],
  from: number,
  eof: boolean,
  bare: (l: string) => string,
): number {
  const tries: ((s: string) => string)[] = [(s) => s, (s) => s.trimEnd(), (s) => s.trim()];
  for (const norm of tries) {
    const starts = eof ? [lines.length - seq.length] : range(from, lines.length - seq.length);
    for (const i of starts) {
      if (i < from) continue;
      let all = true;
      for (let k = 0; k < seq.length && all; k++) all = norm(bare(lines[i + k] ?? '')) === norm(seq[k] as string);
      if (all) return i;
    }
  }
  return -1;
}

function* range(a: number, b: number) {
  for (let i = a; i <= b; i++) yield i;
}
