/**
 * The plans todo_write keeps, one per owner: each agent run's own (a sub-agent is a run of its own, so
 * its plan never replaces its parent's), and the runtime's for calls that no run made (an MCP client,
 * a library caller). Bounded: only the runs that wrote most recently keep theirs, so the plans of
 * finished runs do not pile up in a long-lived runtime. Main thread (the main lane).
 */
import type { TodoItem } from '../core/todos.ts';

/** How many runs keep their plan. */
export const PLAN_RUNS = 16;

export class TodoPlans {
  /** By run id, the least recently written first. */
  readonly #runs = new Map<string, readonly TodoItem[]>();
  #own: readonly TodoItem[] = [];

  readonly keep: number;

  constructor(keep = PLAN_RUNS) {
    this.keep = keep;
  }

  /** The plan of a run, or the runtime's own without one; empty when none was written (or it was let go). */
  get(run?: string): readonly TodoItem[] {
    return run === undefined ? this.#own : (this.#runs.get(run) ?? []);
  }

  /** Replaces a plan; the one it replaced. */
  set(run: string | undefined, todos: readonly TodoItem[]): readonly TodoItem[] {
    const before = this.get(run);
    if (run === undefined) {
      this.#own = todos;
      return before;
    }
    // Deleted first, so the run moves to the end: the newest writer is the last to go.
    this.#runs.delete(run);
    this.#runs.set(run, todos);
    for (const old of this.#runs.keys()) {
      if (this.#runs.size <= this.keep) break;
      this.#runs.delete(old);
    }
    return before;
  }

  /** How many runs keep a plan (for the bound's test). */
  get runs(): number {
    return this.#runs.size;
  }
}
