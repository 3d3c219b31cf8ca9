/**
 * READ_TOOLS: the read-only tools, in registration order. The worker pool imports only this list,
 * so a write tool's module is never loaded in a worker.
 */
import type { Lane, Tool } from '../core/tool.ts';
import { bashOutput } from './bash_output.ts';
import { glob } from './glob.ts';
import { grep } from './grep.ts';
import { loadSkill } from './load_skill.ts';
import { readFile } from './read_file.ts';
import { todoWrite } from './todo_write.ts';
import { webFetch } from './web_fetch.ts';

// biome-ignore lint/suspicious/noExplicitAny: a tool's schema and context are its own; only the lane is checked here
type ReadTool = Tool<string, any, Exclude<Lane, 'write'>, any>;

export const READ_TOOLS = [
  readFile,
  glob,
  grep,
  loadSkill,
  bashOutput,
  webFetch,
  todoWrite,
] as const satisfies readonly ReadTool[];
