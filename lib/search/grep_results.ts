/**
 * What a grep found, merged from its shards, taken in the order it is shown: lines by path then line
 * number (content mode), files by path (the other modes), cut at the head limit. The model's printer
 * (format.ts) writes them as they come; `grepData` keeps them as the data a caller asked for.
 */
import type { GrepData, GrepFile, GrepLine } from '../core/answers.ts';
import { eachListed, type ShardListing } from './listing.ts';
import type { GrepFileResult, GrepMode, SkipCounts } from './shards.ts';
import { mergeSkipped } from './skip_tally.ts';

export interface GrepFound {
  /** Content mode: files with matches and their lines, in path order. */
  files: readonly GrepFileResult[];
  /** The other modes: each shard's listing of files with matches and their counts (listing.ts merges them). */
  listings: readonly (ShardListing | undefined)[];
  binary: number;
  unreadable: readonly { rel: string; error: string }[];
  skipped: readonly SkipCounts[];
  /** Files searched, when every shard counted them (the index's direct answer does not). */
  searched?: number;
  firstBinary?: { rel: string; offset: number };
}

export interface GrepPrintOptions {
  mode: GrepMode;
  /** Most results to show: lines in content mode, files otherwise (Infinity for all). */
  headLimit: number;
  /** Context lines were asked for, so non-adjacent groups are separated by `--` as in ripgrep. */
  withContext: boolean;
  /** A result's path as the reader sees it, from its path relative to the searched directory. */
  show: (rel: string) => string;
  pattern: string;
  /** The searched path as the reader sees it, for the no-match answer. */
  shown: string;
}

/** What the answer shows: files and matching lines (the shards may have found more). */
export interface GrepPrinted {
  files: number;
  matches: number;
  /** Results shown (lines or files); in the model's text, its first `results` lines, separators included. */
  results: number;
}

/** What was shown, and whether the head limit left more out. */
interface GrepShown extends GrepPrinted {
  more: boolean;
}

/** Hands each result to `visit` in the order shown, up to the head limit. */
export function eachGrepResult(
  found: GrepFound,
  o: GrepPrintOptions,
  visit: (r: GrepLine | GrepFile) => void,
): GrepShown {
  const shown: GrepShown = { files: 0, matches: 0, results: 0, more: false };
  if (o.mode !== 'content')
    eachListed(found.listings, (rel, n) => {
      if (shown.results >= o.headLimit) {
        shown.more = true;
        return false;
      }
      visit({ path: o.show(rel), count: n });
      shown.results++;
      shown.files++;
      shown.matches += o.mode === 'count' ? n : 1;
      return true;
    });
  else eachContentLine(found.files, o, visit, shown);
  return shown;
}

function eachContentLine(
  files: readonly GrepFileResult[],
  o: GrepPrintOptions,
  visit: (r: GrepLine) => void,
  shown: GrepShown,
): void {
  for (const f of files) {
    const path = o.show(f.rel);
    let prev = -1;
    for (const l of f.lines) {
      if (shown.results >= o.headLimit) {
        shown.more = true;
        return;
      }
      const gap = o.withContext && shown.results > 0 && (prev === -1 || l.n !== prev + 1);
      visit({
        path,
        n: l.n,
        text: l.text,
        match: l.match,
        ...(l.partial ? { partial: true } : {}),
        ...(gap ? { gap: true } : {}),
        ...(l.spans ? { spans: l.spans } : {}),
        ...(l.captures ? { captures: l.captures } : {}),
      });
      if (prev === -1) shown.files++;
      if (l.match) shown.matches++;
      prev = l.n;
      shown.results++;
    }
  }
}

/**
 * The results as data, for a caller that prints them itself. With `onlyMatching` each matching line is
 * a match's text, so all of it matched.
 */
export function grepData(
  found: GrepFound,
  o: GrepPrintOptions,
  onlyMatching: boolean,
  start: GrepData['start'],
): GrepData {
  const lines: GrepLine[] = [];
  const files: GrepFile[] = [];
  const shown = eachGrepResult(found, o, (r) => {
    if ('count' in r) files.push(r);
    else {
      lines.push(onlyMatching && r.match ? { ...r, spans: [[0, r.text.length]] } : r);
    }
  });
  return {
    tool: 'grep',
    mode: o.mode,
    pattern: o.pattern,
    shown: o.shown,
    lines,
    files,
    more: shown.more,
    headLimit: o.headLimit,
    skipped: mergeSkipped(found.skipped),
    binary: found.binary,
    unreadable: found.unreadable.map((u) => ({ path: o.show(u.rel), error: u.error })),
    totals: { files: shown.files, matches: shown.matches, results: shown.results },
    start,
    ...(found.searched !== undefined ? { searched: found.searched } : {}),
    ...(found.firstBinary
      ? { firstBinary: { path: o.show(found.firstBinary.rel), offset: found.firstBinary.offset } }
      : {}),
  };
}
