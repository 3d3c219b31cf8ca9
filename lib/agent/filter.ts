/**
 * Which tools a sub-agent gets. Never `agent` itself (no recursion); a background agent only the
 * read-only tools, the skill tools and MCP tools; then the agent's deny list, then its allow list.
 * System tools survive every step. Every list is typed by tool name, so a misspelt name is a
 * compile error.
 */
import type { ToolDefinition } from '../core/registry.ts';
import type { McpToolName, ToolName } from '../tools/mod.ts';

export type AgentToolName = ToolName | McpToolName;

/** What a background agent may use besides MCP tools: the read-only tools and the skill tools. */
export const BACKGROUND_TOOLS: readonly ToolName[] = ['read_file', 'glob', 'grep', 'load_skill', 'install_skill'];

export interface SubAgentFilter {
  background?: boolean;
  allowed?: readonly AgentToolName[];
  disallowed?: readonly AgentToolName[];
}

export function subAgentTools(all: readonly ToolDefinition[], f: SubAgentFilter): ToolDefinition[] {
  const isMcp = (n: string) => n.startsWith('mcp__');
  const keep = (d: ToolDefinition) => {
    if (d.name === 'agent') return false;
    if (d.system) return true;
    if (f.background && !(BACKGROUND_TOOLS as readonly string[]).includes(d.name) && !isMcp(d.name)) return false;
    if (f.disallowed?.some((n) => n === d.name)) return false;
    if (f.allowed?.length && !f.allowed.some((n) => n === d.name)) return false;
    return true;
  };
  return all.filter(keep);
}
