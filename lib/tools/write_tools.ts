/**
 * WRITE_TOOLS: the tools that change files or run commands, in registration order. Only the write
 * lane imports this list. The editing tools and bash join it in their own issues.
 */
import type { Tool } from '../core/tool.ts';

// biome-ignore lint/suspicious/noExplicitAny: the list is checked against the write tool shape
export const WRITE_TOOLS = [] as const satisfies readonly Tool<string, any, false>[];
