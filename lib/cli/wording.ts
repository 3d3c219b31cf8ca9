/**
 * The command line's wording for hints: the flags a person types where a model would set a tool's
 * argument (core/wording.ts). The tools word their hints with it, so nothing rewrites their text.
 */
import { MODEL_WORDING, type Wording } from '../core/wording.ts';

export const CLI_WORDING: Wording = {
  includeIgnored: '--include-ignored (or --hidden, --no-ignore)',
  binaryText: '-a',
  headLimit: '--head-limit',
  limit: '--limit',
  fixedStrings: '-F',
  setFixedStrings: '-F',
  narrowSearch: 'the pattern, the path or -g',
  narrowFiles: 'the path or -g',
  globTool: 'mewcode glob',
  readTool: 'mewcode read',
  continueAt: '--offset {n}',
  oldString: '--old',
  newString: '--new',
  setReplaceAll: 'pass --replace-all',
  editAt: 'pair {n}: ',
  readFirst: MODEL_WORDING.readFirst,
  imageShown: 'Open the file to see it; --json prints the image block a model is given.',
  grants: 'flags',
};

/**
 * The runtime's wording for the calls the CLI makes without one (the agent's, MCP's): the model's,
 * but a refusal names the flags, since flags are what configured this runtime.
 */
export const CLI_MODEL_WORDING: Wording = { ...MODEL_WORDING, grants: 'flags' };

/**
 * `mewcode call`: a model's wording (its answer is the tool's own), but a file must be read in the
 * same process before it changes, and the next call is a new process: say what works instead.
 */
export const CALL_WORDING: Wording = {
  ...CLI_MODEL_WORDING,
  readFirst:
    'each mewcode call is a new session. Use mewcode edit FILE --old TEXT --new TEXT (it reads, then edits), ' +
    'or mewcode batch with a read_file call before the change.',
};
