/**
 * What grep, glob and read_file found, as data: the one answer their printers turn into text — the
 * model's (lib/search/format.ts, the tools), the command line's rg-style lines with colour and its
 * JSON Lines (lib/cli/). A caller asks for it with the call's `form: 'data'`; no printer reads
 * another's text. Plain JSON, so it crosses the worker boundary.
 */

/** Entries a walk left out, by why: ignore files, hidden, denied by the permissions. */
export type SkipTally = Partial<Record<'gitignore' | 'ignore' | 'mewcodeignore' | 'hidden' | 'denied', SkipCount>>;
export interface SkipCount {
  dirs: number;
  files: number;
}

/** One line of grep's content mode. */
export interface GrepLine {
  /** The file, as the reader sees it (relative to the root, control characters escaped). */
  path: string;
  /** 1-based line number. */
  n: number;
  text: string;
  /** A matching line, or context. */
  match: boolean;
  /** Only the beginning of a line longer than the search buffer. */
  partial?: boolean;
  /** A `--` separates this line from the one before (context lines were asked for and they are not adjacent). */
  gap?: boolean;
  /**
   * Where the pattern matched, as [start, end) UTF-16 offsets into `text`: found by the search itself
   * (in a worker for a pattern that could backtrack). Absent for an inverted search and for context.
   */
  spans?: [number, number][];
  /**
   * Asked with spans `groups` (rg -r): each match in `text`, empty ones too as rg iterates them, as
   * the [start, end) of the whole match then of each capture group (null: the group took no part).
   */
  captures?: Captures;
}

/** Per match, the span of the whole match then of each group by number (GrepLine.captures). */
export type Captures = ([number, number] | null)[][];

/** A file of grep's files_with_matches or count mode. */
export interface GrepFile {
  path: string;
  /** Matching lines (matches with only_matching); 1 in files_with_matches mode. */
  count: number;
}

export interface GrepData {
  tool: 'grep';
  mode: 'content' | 'files_with_matches' | 'count';
  pattern: string;
  /** The searched path as the reader sees it. */
  shown: string;
  /** Content mode: the lines shown, in path then line order. */
  lines: GrepLine[];
  /** The other modes: the files shown, in path order. */
  files: GrepFile[];
  /** The head limit cut the results: more exist. */
  more: boolean;
  headLimit: number;
  /** Whether skip and binary counts are known (a search cut by the head limit stops early). */
  skipped: SkipTally;
  binary: number;
  unreadable: { path: string; error: string }[];
  /** Files with results shown, matching lines shown (matches in count mode), and results shown. */
  totals: { files: number; matches: number; results: number };
  /** Whether the path searched is one file or a directory (rg prints no path for one file). */
  start: 'file' | 'dir';
  /**
   * Files searched: those the walk and the -g/-t filters let through, binary ones included. Absent when
   * the search index answered, which does not count them.
   */
  searched?: number;
  /** The first binary file skipped that may match, and the offset of its first NUL byte. */
  firstBinary?: { path: string; offset: number };
}

export interface GlobData {
  tool: 'glob';
  pattern: string;
  shown: string;
  /** The paths shown, as the reader sees them, in the order asked for. */
  paths: string[];
  /** All paths that matched (the limit may show fewer). */
  total: number;
  limit: number;
  skipped: SkipTally;
}

export interface ReadFileData {
  tool: 'read_file';
  /** The numbered lines (or the one line saying the file is empty). */
  text: string;
  /** Where the window stopped short and how to read on, when it did. */
  footer?: string;
}

export type ToolData = GrepData | GlobData | ReadFileData;

/** How a caller wants an answer: text for a model (the default), or data it prints itself. */
export type AnswerForm = 'text' | 'data';
