/**
 * `ToolResult`, the value every tool call ends in, and its closed set of error codes. Plain JSON, so
 * a result crosses the worker boundary intact.
 */
import type { ToolData } from './answers.ts';
import type { Enforcer, LimitHit, LimitName } from './limits.ts';
import type { ReadRecord } from './read_record.ts';
import type { TodoItem } from './todos.ts';

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

/** An image a result shows the model (read_file of a picture, a notebook's plot), base64 within the providers' limits. */
export interface ToolImage {
  mediaType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  /** The bytes, base64. */
  data: string;
  width: number;
  height: number;
}

/** What every tool call ends in. `run` never throws: a failure is a result with `isError` and a code. */
export interface ToolResult {
  content: string;
  isError: boolean;
  /** Images beside `content` (which says what each one is). */
  images?: ToolImage[];
  code?: ErrorCode;
  meta?: ResultMeta;
  /** What the tool found, for a caller that asked for `form: 'data'` and prints it itself. */
  data?: ToolData;
}

/**
 * Structured side data: what a program reads beside `content`. Plain JSON, so it crosses the worker
 * boundary intact. Closed: each tool's keys are named below, grouped by the tool that sets them, so a
 * caller reads them typed and a new key is declared where every caller sees it.
 */
export interface ResultMeta
  extends CallMeta,
    SearchMeta,
    ReadFileMeta,
    CommandMeta,
    ChangeMeta,
    SkillMeta,
    SubAgentMeta,
    TodoMeta,
    WebMeta {}

/** web_fetch. */
interface WebMeta {
  web?: {
    /** Where the content came from, after redirects. */
    url: string;
    status: number;
    contentType: string;
    /** Body bytes read (after decompression). */
    bytes: number;
    /** The body went on past max_bytes. */
    cut: boolean;
    /** Answered from the 15-minute page cache. */
    cached: boolean;
    /** HTML: 'main' (its main content) or 'whole' (the page without its navigation). */
    part?: 'main' | 'whole';
  };
}

/** Set on any call's result by the runtime. */
interface CallMeta {
  /** A read record for the write lane's ledger (read_file); the main thread stores it. */
  read?: ReadRecord;
  /** The policy's decision on the call, when it reached the policy. */
  policy?: PolicyDecision;
  /** Set when the output budget cut `content`: where the whole text was spilled. */
  truncated?: { shownBytes: number; totalBytes: number; spillPath?: string };
}

/** grep and glob. */
interface SearchMeta {
  /** grep: files with results shown. apply_patch: files the patch changed. */
  files?: number;
  /** grep: matching lines shown (matches counted, in count mode). */
  matches?: number;
  /** How many of `content`'s first lines are results; the rest are notes. */
  results?: number;
  /** The search ran on the calling thread, not in the pool. */
  inline?: boolean;
  /** grep: what the n-gram index did for this search ('served', or why it scanned). */
  index?: string;
  /** glob: paths that matched, and how many are shown. */
  total?: number;
  shown?: number;
}

/** read_file: the window of lines shown. */
interface ReadFileMeta {
  /** `total` is null when the file was not read to its end. */
  lines?: { first: number; last: number; total: number | null; cut: number };
  /** A notebook: the cells shown, of how many. */
  cells?: { first: number; last: number; total: number };
  /** A PDF: the pages shown, of how many. */
  pages?: { first: number; last: number; total: number };
  /** A picture: what the file is, and what the model was shown. */
  image?: {
    format: string;
    width: number;
    height: number;
    bytes: number;
    shown: { mediaType: string; width: number; height: number };
  };
}

/** One connection a sandboxed command tried through the runtime's proxy (lib/sandbox/net_proxy.ts). */
export interface NetAttempt {
  /** How it asked: an HTTP request, an HTTP CONNECT tunnel, or SOCKS5. */
  via: 'http' | 'connect' | 'socks5';
  host: string;
  port: number;
  allowed: boolean;
  /** Why it was refused (what the command was told). */
  why?: string;
  /** The addresses it resolved to and was connected to (or refused for). */
  addresses?: string[];
  /** What only the record keeps: the resolved addresses of a refusal, an upstream error. */
  detail?: string;
  ms: number;
}

/** bash. */
interface CommandMeta {
  exitCode?: number | null;
  ms?: number;
  /** Bytes of output, all of it (what was kept may be less). */
  bytes?: number;
  /** Where the whole output was written when it outgrew memory. */
  spillPath?: string;
  description?: string;
  sandboxed?: boolean;
  /** What held the command's processes together (lib/exec/containment.ts). */
  contained?: string;
  /** What was still running when the command ended, and was killed. */
  leftover?: string;
  /** How each limit held the command: its cgroup, a resource limit, or nothing here (lib/exec/limits.ts). */
  limits?: Partial<Record<LimitName, Enforcer>>;
  /** The connections a sandboxed command tried, its network filtered by host (the first 200; `more` past them). */
  network?: { attempts: NetAttempt[]; more: number };
  /** The limit that ended the command, when one did. */
  limitHit?: LimitHit;
  /** A background job (bash run_in_background, bash_output, kill_bash, write_stdin): its id. */
  bashId?: string;
  /** The job's state: `running`, `exited N`, `killed by SIGNAL`, `stopped by kill_bash`, `timed out`… */
  jobState?: string;
  /** bash_output: bytes of the output this read covered but did not show (they are in `spillPath`). */
  skipped?: number;
  /** write_stdin: bytes of the input the job has not read yet (queued for it). */
  queued?: number;
  /**
   * What the command changed in the root that its journal entry does not hold (a symlink, an ignored
   * path, a file whose earlier bytes were not kept…), each with why (docs/undo.md).
   */
  notRecorded?: { path: string; why: string }[];
}

/** write_file, edit_file, multi_edit (and apply_patch's `diff`). */
interface ChangeMeta {
  /** The file did not exist before. */
  created?: boolean;
  /**
   * The change as the answer shows it, a unified diff (apply_patch: each file's `A`/`M`/`R`/`D` line
   * and its diff), for a printer to show; not for write_file's new files, whose answer has none.
   */
  diff?: string;
  /** write_file: the file already held exactly this content; nothing was written. */
  unchanged?: boolean;
  /** The journal entry that recorded the change (every write tool, and bash when it changed files; `mewcode undo --to`, docs/undo.md). */
  journal?: number;
  replacements?: number;
}

/** load_skill and install_skill. */
interface SkillMeta {
  /** load_skill: the skill pinned into the following turns' system prompt. */
  skill?: { name: string; body: string };
  /** install_skill: the skill installed, and its tree's digest. */
  name?: string;
  sha256?: string;
}

/** todo_write. */
interface TodoMeta {
  /** The plan as it now stands, every item (the whole plan replaces the one before it). */
  todos?: TodoItem[];
}

/** The agent tool: the sub-agent's turns and tokens. */
interface SubAgentMeta {
  turns?: number;
  usage?: { input: number; output: number };
}

/** What the policy decided about a call and why (lib/policy/check.ts makes them). */
export interface PolicyDecision {
  allow: boolean;
  /** The step that decided: blacklist, protected, mode, flag, rule, default, hook or prompt. */
  by: string;
  reason: string;
  /**
   * What in that step decided: the rule as written with its level and list (`project deny bash(rm:*)`),
   * the flag, the mode, the hook's command, the prompt's answer (`answered once`, `no prompt`…).
   */
  source?: string;
  /** The PreToolUse hooks that ran on the call (their commands), whichever step decided. */
  hooks?: string[];
  /** A refusal that flags could lift: those flags (`--allow-write=src`), for a printer to offer. */
  grants?: string[];
}

export const ok = (content: string, meta?: ResultMeta): ToolResult =>
  meta === undefined ? { content, isError: false } : { content, isError: false, meta };

/** An answer as data (`form: 'data'`): no text; the caller's printer makes it. */
export const okData = (data: ToolData, meta?: ResultMeta): ToolResult =>
  meta === undefined ? { content: '', isError: false, data } : { content: '', isError: false, meta, data };

export const fail = (code: ErrorCode, content: string, meta?: ResultMeta): ToolResult =>
  meta === undefined ? { content, isError: true, code } : { content, isError: true, code, meta };
