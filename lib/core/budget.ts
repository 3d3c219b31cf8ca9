/**
 * The output budget: the one place results are cut. Cuts never split a UTF-8 sequence or a
 * surrogate pair, every cut says `[truncated: …]` with what was left out and how to get it, and an
 * oversized result is spilled whole to a file in its root's spill directory (lib/core/spill_dir.ts),
 * which read_file may read. Runs wherever a tool runs (worker or main thread).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { errValue, okValue, type Result } from './result.ts';
import { spillDirFor } from './spill_dir.ts';
import type { ResultMeta, ToolResult } from './tool_result.ts';

/** Default budget for a tool result's content, in UTF-8 bytes. */
export const DEFAULT_RESULT_BYTES = 256 * 1024;

export interface Budget {
  maxBytes?: number;
  /** The root whose spill directory takes the whole text (its real path). */
  root?: string;
  /** Where spill files go instead (tests); without it or `root` nothing is spilled. */
  spillDir?: string;
}

/** The one marker style for anything cut from a result. */
export const truncationMarker = (what: string, how: string) => `[truncated: ${what}; ${how}]`;

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, cut on a code point.
 * Returns the prefix and its byte length.
 */
export function utf8Prefix(text: string, maxBytes: number): { text: string; bytes: number } {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return { text, bytes: buf.length };
  let cut = Math.max(0, maxBytes);
  // Step back over continuation bytes (10xxxxxx) so the cut lands before a lead byte.
  while (cut > 0 && ((buf[cut] ?? 0) & 0xc0) === 0x80) cut--;
  return { text: buf.subarray(0, cut).toString('utf8'), bytes: cut };
}

/** The longest prefix of `text` of at most `maxChars` UTF-16 units that does not split a surrogate pair. */
export function charPrefix(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let cut = maxChars;
  const c = text.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff) cut--; // a high surrogate whose partner would be cut off
  return text.slice(0, cut);
}

/** Cuts a result's content to the budget, spilling the whole text to a file when it does. */
export function applyBudget(result: ToolResult, budget: Budget = {}): ToolResult {
  const maxBytes = budget.maxBytes ?? DEFAULT_RESULT_BYTES;
  const totalBytes = Buffer.byteLength(result.content, 'utf8');
  if (totalBytes <= maxBytes) return result;
  const { content, truncated } = cutToBudget(result.content, totalBytes, spill(result.content, budget), maxBytes);
  return { ...result, content, meta: { ...result.meta, truncated } };
}

/** What a cut result says about itself (ResultMeta.truncated). */
type Truncated = NonNullable<ResultMeta['truncated']>;

/**
 * The text the model sees of an oversized result: the start of `head` within the budget, ending on a
 * whole line where one is near, then the marker. `head` is the whole text or any prefix of it longer
 * than `maxBytes` (the cut only looks that far), so a text written in pieces is cut like a whole one.
 */
export function cutToBudget(
  head: string,
  totalBytes: number,
  spilled: Result<string, string>,
  maxBytes: number,
): { content: string; truncated: Truncated } {
  // Leave room for the marker inside the budget, then prefer ending on a whole line.
  let { text } = utf8Prefix(head, Math.max(0, maxBytes - 512));
  const nl = text.lastIndexOf('\n');
  if (nl > text.length * 0.9) text = text.slice(0, nl + 1);
  const shownBytes = Buffer.byteLength(text, 'utf8');
  const how = spilled.ok
    ? `the whole output is in "${spilled.value}"; read the rest with read_file (file_path "${spilled.value}", offset = the next line)`
    : `the rest could not be saved (${spilled.error}); narrow the request`;
  const marker = truncationMarker(`showing ${fmtInt(shownBytes)} of ${fmtInt(totalBytes)} bytes`, how);
  return {
    content: `${text}${text.endsWith('\n') ? '' : '\n'}${marker}`,
    truncated: { shownBytes, totalBytes, ...(spilled.ok ? { spillPath: spilled.value } : {}) },
  };
}

/** A new spill file's path in the budget's spill directory (not created yet), or why there is none. */
export function spillTarget(budget: Budget): Result<string, string> {
  const dir =
    budget.spillDir !== undefined ? okValue(budget.spillDir) : budget.root ? spillDirFor(budget.root) : undefined;
  if (dir === undefined) return errValue('no spill directory');
  if (!dir.ok) return dir;
  return okValue(path.join(dir.value, `${Date.now()}-${randomBytes(6).toString('hex')}.txt`));
}

/** Why a spill file could not be written, as the marker says it. */
export const unwritable = (file: string, e: unknown) =>
  `${file} cannot be written: ${(e as NodeJS.ErrnoException).code ?? e}`;

function spill(content: string, budget: Budget): Result<string, string> {
  const file = spillTarget(budget);
  if (!file.ok) return file;
  try {
    writeFileSync(file.value, content, { mode: 0o600, flag: 'wx' });
    return file;
  } catch (e) {
    // A full disk must not turn a result into a crash; the marker says so.
    return errValue(unwritable(file.value, e));
  }
}

/**
 * `n.toLocaleString('en-US')` ("12,345"), without loading the locale data for the integers it is
 * given: the first toLocaleString of a process costs 25–60 ms, a third of a small one-shot search.
 */
export const fmtInt = (n: number) =>
  Number.isSafeInteger(n) && !Object.is(n, -0) ? String(n).replace(/\B(?=(\d{3})+$)/g, ',') : n.toLocaleString('en-US');
