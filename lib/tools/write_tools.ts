/**
 * WRITE_TOOLS: the tools that change files or run commands, in registration order. Only the write
 * lane runs them (main thread, one call at a time).
 */
import type { Tool } from '../core/tool.ts';
import { applyPatch } from './apply_patch.ts';
import { bash } from './bash.ts';
import { editFile } from './edit_file.ts';
import { installSkill } from './install_skill.ts';
import { killBash } from './kill_bash.ts';
import { multiEdit } from './multi_edit.ts';
import { notebookEdit } from './notebook_edit.ts';
import { writeFile } from './write_file.ts';
import { writeStdin } from './write_stdin.ts';

// biome-ignore lint/suspicious/noExplicitAny: a tool's schema and context are its own; only the lane is checked here
type WriteTool = Tool<string, any, 'write', any>;

export const WRITE_TOOLS = [
  writeFile,
  editFile,
  multiEdit,
  applyPatch,
  notebookEdit,
  bash,
  killBash,
  writeStdin,
  installSkill,
] as const satisfies readonly WriteTool[];
