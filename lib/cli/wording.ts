/**
 * The command line's wording for hints: the flags a person types where a model would set a tool's
 * argument (core/wording.ts). The tools word their hints with it, so nothing rewrites their text.
 */
import type { Wording } from '../core/wording.ts';

export const CLI_WORDING: Wording = {
  includeIgnored: '--include-ignored (or --hidden, --no-ignore)',
  headLimit: '--head-limit',
  limit: '--limit',
  fixedStrings: '-F',
  setFixedStrings: '-F',
  narrowSearch: 'the pattern, the path or -g',
  narrowFiles: 'the path or -g',
  globTool: 'mewcode glob',
  readTool: 'mewcode read',
  continueAt: '--offset {n}',
};
