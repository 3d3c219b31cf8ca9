/**
 * The main lane's context: tools whose state lives on the main thread (load_skill's catalog,
 * todo_write's plans; an MCP tool's connection, which it holds itself) run there rather than in a worker.
 */
import type { ToolContext } from '../core/tool.ts';
import type { JobTable } from '../exec/jobs.ts';
import type { SkillCatalog } from '../skills/catalog.ts';
import type { TodoPlans } from './todo_plans.ts';

export interface MainContext extends ToolContext {
  skills: SkillCatalog;
  /** The runtime's background jobs (bash_output reads them); absent for a one-shot call. */
  jobs?: JobTable;
  /** The plans todo_write keeps, one per agent run and one for calls no run made. */
  plans: TodoPlans;
}
