/**
 * What the agent loop does with background jobs: a job that ends is told to the model in the next turn
 * (one line after the turn's tool results: id, command, state) and to the run's listener as a `job`
 * event, as is a job that starts; when the top-level run ends, the jobs it started are stopped
 * (nothing the model started outlives its run; sub-agents' jobs belong to the run that holds them).
 */
import type { ToolResult } from '../core/tool.ts';
import type { JobInfo } from '../exec/jobs.ts';
import type { AgentEvent } from './types.ts';

export interface JobWatch {
  /** The lines for the jobs that ended since the last call. */
  endedLines(): string[];
  /** Tells the listener of jobs a turn's results started. */
  started(results: readonly (ToolResult | undefined)[]): void;
  /** Stops listening; for the top-level run, stops the jobs it started and waits for them. */
  stop(): Promise<void>;
}

export function watchJobs(
  rt: { jobs: { list(): JobInfo[]; onEnded(f: (j: JobInfo) => void): () => void; kill(id: string): Promise<boolean> } },
  emit: (e: AgentEvent) => void,
  depth: number,
): JobWatch {
  const before = new Set(rt.jobs.list().map((j) => j.id));
  const pending: string[] = [];
  const forget = rt.jobs.onEnded((j) => {
    if (before.has(j.id)) return;
    pending.push(
      `[background job ${j.id} (${shortCommand(j.command)}) ended: ${j.state}; bash_output shows what it wrote last]`,
    );
    emit({ type: 'job', id: j.id, command: j.command, state: j.state, depth });
  });
  return {
    endedLines: () => pending.splice(0),
    started(results) {
      for (const r of results) {
        const id = r?.meta?.bashId;
        const info = id && r?.meta?.jobState === undefined ? rt.jobs.list().find((j) => j.id === id) : undefined;
        if (info) emit({ type: 'job', id: info.id, command: info.command, state: 'running', depth });
      }
    },
    async stop() {
      forget();
      if (depth !== 0) return;
      const mine = rt.jobs.list().filter((j) => j.running && !before.has(j.id));
      await Promise.all(mine.map((j) => rt.jobs.kill(j.id)));
    },
  };
}

const shortCommand = (c: string) => (c.length > 60 ? `${c.slice(0, 57)}...` : c);
