/**
 * The built-in tool set and the `ToolName` union derived from it. Every list of tool names (filters,
 * rules, modes, dispatch tables) is typed by `ToolName`, so a misspelt name fails to compile.
 */
import { READ_TOOLS } from './read_tools.ts';
import { WRITE_TOOLS } from './write_tools.ts';

export const TOOLS = [...READ_TOOLS, ...WRITE_TOOLS] as const;

export type ToolName = (typeof TOOLS)[number]['name'];
/** Tools registered at run time by an MCP server: `mcp__<server>__<tool>`. */
export type McpToolName = `mcp__${string}__${string}`;

export const TOOL_NAMES: readonly ToolName[] = TOOLS.map((t) => t.name);
