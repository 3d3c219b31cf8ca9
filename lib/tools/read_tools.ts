/**
 * READ_TOOLS: the read-only tools, in registration order. The worker pool imports only this list,
 * so a write tool's module is never loaded in a worker.
 */
import type { Tool } from '../core/tool.ts';
import { loadSkill } from '../skills/load_skill.ts';
import { glob } from './glob.ts';
import { grep } from './grep.ts';
import { readFile } from './read_file.ts';

// biome-ignore lint/suspicious/noExplicitAny: the list is checked against the read-only tool shape
export const READ_TOOLS = [readFile, glob, grep, loadSkill] as const satisfies readonly Tool<string, any, true>[];
