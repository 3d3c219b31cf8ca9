/**
 * `ToolResult`, the value every tool call ends in, and its closed set of error codes. Plain JSON, so
 * a result crosses the worker boundary intact.
 */
import type { ReadRecord } from './read_record.ts';

/**
 * The closed set of error codes a result may carry. The model reads `content`; programs read `code`.
 * `io` is the operating system refusing or failing; `internal` is a broken invariant of MewCode itself
 * (a tool that threw, a lane given a call it cannot run): a bug to report, not something to retry.
 */
export const ERROR_CODES = [
  'invalid_args',
  'unknown_tool',
  'not_found',
  'is_directory',
  'not_a_file',
  'outside_root',
  'permission_denied',
  'not_read',
  'stale',
  'no_match',
  'not_unique',
  'no_change',
  'binary',
  'not_text',
  'exists',
  'locked',
  'too_large',
  'timeout',
  'cancelled',
  'io',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** What every tool call ends in. `run` never throws: a failure is a result with `isError` and a code. */
export interface ToolResult {
  content: string;
  isError: boolean;
  code?: ErrorCode;
  meta?: ResultMeta;
}

/** Structured side data. Plain JSON, so it crosses the worker boundary intact. */
export interface ResultMeta {
  /** A read record for the write lane's ledger (read_file); the main thread stores it. */
  read?: ReadRecord;
  /** The policy's decision on the call, when it reached the policy. */
  policy?: PolicyDecision;
  /** Set when the output budget cut `content`: where the whole text was spilled. */
  truncated?: { shownBytes: number; totalBytes: number; spillPath?: string };
  [key: string]: unknown;
}

/** What the policy decided about a call and why (lib/policy/check.ts makes them). */
export interface PolicyDecision {
  allow: boolean;
  /** The step that decided: blacklist, protected, mode, flag, rule, default, hook or prompt. */
  by: string;
  reason: string;
}

export const ok = (content: string, meta?: ResultMeta): ToolResult =>
  meta === undefined ? { content, isError: false } : { content, isError: false, meta };

export const fail = (code: ErrorCode, content: string, meta?: ResultMeta): ToolResult =>
  meta === undefined ? { content, isError: true, code } : { content, isError: true, code, meta };
