/**
 * How a task handed to another thread ended: its value, or why it did not finish. The read pool makes
 * these; the searches and tools that hand it work read them, so the type lives below both.
 */
import type { Result } from './result.ts';

/** Why a task did not finish: its deadline, its caller's cancel, or a failure in the worker. */
export interface TaskFailure {
  reason: 'timeout' | 'cancelled' | 'failed';
  message: string;
}

export type TaskOutcome<T> = Result<T, TaskFailure>;
