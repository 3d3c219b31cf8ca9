/**
 * Which tools a sub-agent gets. Never `agent` itself (no recursion); a read-only agent only the
 * read-only tools (read_file, glob, grep, load_skill, bash_output, web_fetch, todo_write — whose plan
 * is the sub-agent's own — and MCP tools whose server says they only read); then the agent's deny
 * list, then its allow list. System tools survive every step. Every list is typed by tool name, so a
 * misspelt name is a compile error.
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

/**
 * The background-job tools act on what `bash` started, in this run or its parent's: an agent denied
 * bash is denied them too (write_stdin to a shell job would run commands), and one allowed only some
 * tools gets them only with bash.
 */
const JOB_TOOLS: readonly string[] = ['bash_output', 'kill_bash', 'write_stdin'];
const asBash = (name: string) => (JOB_TOOLS.includes(name) ? 'bash' : name);

export function subAgentTools(all: readonly ToolDefinition[], f: SubAgentFilter): ToolDefinition[] {
  const keep = (d: ToolDefinition) => {
    if (d.name === 'agent') return false;
    if (d.system) return true;
    if (f.readOnly && !d.readOnly) return false;
    const name = asBash(d.name);
    if (f.disallowed?.some((n) => n === d.name || n === name)) return false;
    if (f.allowed?.length && !f.allowed.some((n) => n === d.name || n === name)) return false;
    return true;
  };
  return all.filter(keep);
}
