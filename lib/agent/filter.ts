/**
 * Which tools a sub-agent gets. Never `agent` itself (no recursion); a read-only agent only the
 * read-only tools (read_file, glob, grep, load_skill, and MCP tools whose server says they only
 * read); then the agent's deny list, then its allow list. System tools survive every step. Every
 * list is typed by tool name, so a misspelt name is a compile error.
 */
import type { ToolDefinition } from '../core/registry.ts';
import type { McpToolName, ToolName } from '../tools/mod.ts';

export type AgentToolName = ToolName | McpToolName;

export interface SubAgentFilter {
  /** Only read-only tools: the sub-agent can look, not change. */
  readOnly?: boolean;
  allowed?: readonly AgentToolName[];
  disallowed?: readonly AgentToolName[];
}

export function subAgentTools(all: readonly ToolDefinition[], f: SubAgentFilter): ToolDefinition[] {
  const keep = (d: ToolDefinition) => {
    if (d.name === 'agent') return false;
    if (d.system) return true;
    if (f.readOnly && !d.readOnly) return false;
    if (f.disallowed?.some((n) => n === d.name)) return false;
    if (f.allowed?.length && !f.allowed.some((n) => n === d.name)) return false;
    return true;
  };
  return all.filter(keep);
}
