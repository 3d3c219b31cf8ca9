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
 *
 * Headers, like Begin and End, may carry leading whitespace (models indent patches). Applying a
 * parsed update is lib/edit/patch_apply.ts.
 */
import { errValue, okValue, type Result } from '../core/result.ts';

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

const HEADER = /^\s*\*\*\* (Add File|Delete File|Update File|Move to): (.+)$/;
/** A line that ends a file's section: any header, or a `***` line other than End of File. */
const ends = (l: string | undefined) =>
  l !== undefined && (HEADER.test(l) || (l.startsWith('*** ') && l.trim() !== '*** End of File'));

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
      while (i < end && !ends(lines[i])) {
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
      while (i < end && !ends(lines[i])) {
        const l = lines[i] as string;
        if (l.startsWith('@@')) {
          const anchor = l.slice(2).trim();
          chunk = { old: [], new: [], tags: '', eof: false, at: i + 1, ...(anchor ? { anchor } : {}) };
          op.chunks.push(chunk);
        } else if (l.trim() === '*** End of File') {
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
