/**
 * Content-mode answers of a live rg and of MewCode as comparable lines, for the parity tests of large
 * files: `path:line:text`, a trailing `\r` dropped and each line cut to its first `width` characters
 * (MewCode cuts long lines, format.ts; rg does not), MewCode's notes left out, a spilled answer read
 * back from its spill file (which is then removed).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Runtime } from '../../lib/runtime/runtime.ts';
import { RG_CONTENT, rg } from '../helpers/rg.ts';
import { removeSpills } from '../helpers/runtime.ts';

const cut = (l: string, width: number) => l.replace(/\r$/, '').slice(0, width);

export const rgLines = (root: string, args: string[], width: number): string[] =>
  rg(root, [...RG_CONTENT, ...args], { maxBuffer: 256 * 1024 * 1024 }).lines.map((l) => cut(l, width));

export async function ourLines(rt: Runtime, input: Record<string, unknown>, width: number): Promise<string[]> {
  const r = await rt.call('grep', { head_limit: 0, ...input });
  assert.equal(r.isError, false, r.content);
  const spill = r.meta?.truncated?.spillPath;
  const text = typeof spill === 'string' ? readFileSync(spill, 'utf8') : r.content;
  removeSpills(r);
  if (text.startsWith('No ')) return [];
  return text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('[note:') && !l.startsWith('[truncated:'))
    .map((l) => cut(l, width));
}
