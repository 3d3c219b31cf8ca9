/**
 * How an answer names what its reader can do next. A model sets a tool's arguments
 * (`include_ignored: true`); a person at the command line types flags (`--include-ignored`). A tool
 * words its hints through the reader's `Wording`, so the CLI never rewrites a model's text. Plain
 * strings, so a wording crosses the worker boundary with its task.
 */
export interface Wording {
  /** How to ask a search for ignored and hidden files too. */
  includeIgnored: string;
  /** How to ask grep to search binary files as text. */
  binaryText: string;
  /** How to ask grep for more results ("raise … (0 for all)"). */
  headLimit: string;
  /** How to ask glob for more paths. */
  limit: string;
  /** What takes grep's pattern as a literal ("use …"). */
  fixedStrings: string;
  /** How to ask for it ("pass …"). */
  setFixedStrings: string;
  /** What narrows a search: the pattern, its path and its file filter. */
  narrowSearch: string;
  /** What narrows a search's files: its path and its file filter. */
  narrowFiles: string;
  /** The tool that finds files and directories by name. */
  globTool: string;
  /** The tool that reads a file. */
  readTool: string;
  /** How to read on from a line: `{n}` stands for its number. */
  continueAt: string;
  /** The text an edit replaces, and its replacement. */
  oldString: string;
  newString: string;
  /** How to ask an edit to change every occurrence. */
  setReplaceAll: string;
  /** Which of several edits a hint is about: `{i}` its index from 0, `{n}` its number from 1. */
  editAt: string;
  /** What to do about a file not read in this session before changing it. */
  readFirst: string;
  /** Where a picture a read shows is: beside the answer for a model, elsewhere for a person. */
  imageShown: string;
  /**
   * How a refusal names what would lift it: `flags` (`--allow-write=src`, for whoever started the
   * command line) or `option` (createRuntime's `permissions` option, for a library's caller).
   */
  grants: 'flags' | 'option';
}

/** A model's wording: the tools' own argument names. */
export const MODEL_WORDING: Wording = {
  includeIgnored: 'include_ignored: true',
  binaryText: 'binary: "text"',
  headLimit: 'head_limit',
  limit: 'limit',
  fixedStrings: 'fixed_strings',
  setFixedStrings: 'fixed_strings: true',
  narrowSearch: 'pattern, path or glob',
  narrowFiles: 'path and glob',
  globTool: 'glob',
  readTool: 'read_file',
  continueAt: 'offset={n}',
  oldString: 'old_string',
  newString: 'new_string',
  setReplaceAll: 'set replace_all: true',
  editAt: 'edits[{i}].',
  readFirst: 'read it with read_file first (a partial read is enough), then retry.',
  imageShown: 'The image is attached to this answer.',
  grants: 'option',
};

/** The old text of edit `i` of several, in the reader's words: `edits[0].old_string`, `pair 1: --old`. */
export const editLabel = (w: Wording, i: number) =>
  `${w.editAt.replace('{i}', String(i)).replace('{n}', String(i + 1))}${w.oldString}`;

/** "continue with offset=N" in the reader's words. */
export const continueAt = (w: Wording, line: number) => w.continueAt.replace('{n}', String(line));
