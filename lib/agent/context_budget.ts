/**
 * The context budget of a run: no request may exceed it. Sizes are estimated as UTF-8 bytes / 3 of
 * the request's JSON (system prompt, tool list, messages) — more tokens than real tokenizers count for
 * code and prose (about 3.5–4 bytes a token), so the estimate errs toward staying under. When a
 * request would not fit, `trim` first clears the oldest tool results to a one-line stub that names
 * how to get them back (the spill file, or running the call again), then replaces large string
 * arguments of calls that already ran by a summary. Compaction by the model (compact.ts) is the step
 * after. Main thread.
 */
import type { ToolDefinition } from '../core/registry.ts';
import type { ToolImage } from '../core/tool_result.ts';
import type { Message, ToolResultMessage } from '../llm/provider.ts';

/** Context windows by model family, in tokens; unknown models get a conservative 128k. */
function contextWindow(model: string): number {
  if (/^claude-/.test(model)) return 200_000;
  if (/^gpt-4\.1/.test(model)) return 1_000_000;
  if (/^gpt-5/.test(model)) return 400_000;
  if (/^(o3|o4)/.test(model)) return 200_000;
  return 128_000;
}

/** MEWCODE_CONTEXT_TOKENS, else the model's window. */
export function contextBudget(model: string, env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.MEWCODE_CONTEXT_TOKENS);
  return Number.isInteger(n) && n > 0 ? n : contextWindow(model);
}

export const estimateTokens = (s: string): number => Math.ceil(Buffer.byteLength(s, 'utf8') / 3);

/**
 * An image costs what the providers charge for its pixels (about width × height / 750 tokens, at
 * least a small fixed part), not what its base64 would cost as text: its data is left out of the JSON.
 */
export const imageTokens = (i: ToolImage): number => Math.max(85, Math.ceil((i.width * i.height) / 750));

export function requestTokens(system: string, tools: readonly ToolDefinition[], messages: readonly Message[]): number {
  let images = 0;
  const json = JSON.stringify({ system, tools, messages }, (key, value: unknown) => {
    if (key !== 'images' || !Array.isArray(value)) return value;
    for (const i of value as ToolImage[]) images += imageTokens(i);
    return undefined;
  });
  return estimateTokens(json) + images;
}

/** Arguments longer than this (characters) are summarized once their call has run. */
const LARGE_INPUT = 1024;

interface TrimReport {
  clearedResults: number;
  summarizedInputs: number;
}

/**
 * Trims `transcript` in place, oldest first, until `excess` tokens are shed — the latest tool
 * results stay whole (the model has not seen them yet). Each change is measured by itself, so a long
 * conversation is not serialized again for every message. Returns what it did.
 */
export function trim(transcript: Message[], excess: number): TrimReport {
  const report: TrimReport = { clearedResults: 0, summarizedInputs: 0 };
  let left = excess;
  const shed = (before: ToolResultMessage | unknown, after: unknown) => {
    const pictured = (before as Partial<ToolResultMessage>).images ?? [];
    left -= estimateTokens(JSON.stringify(before, skipImages)) - estimateTokens(JSON.stringify(after, skipImages));
    left -= pictured.reduce((n, i) => n + imageTokens(i), 0);
  };
  const lastResults = transcript.findLastIndex((m) => m.role === 'tool_results');
  for (let i = 0; i < lastResults && left > 0; i++) {
    const m = transcript[i];
    if (m?.role !== 'tool_results') continue;
    m.results = m.results.map((r) => {
      if (left <= 0 || r.content.startsWith(CLEARED)) return r;
      report.clearedResults++;
      const { images: _dropped, ...rest } = r;
      const cleared = { ...rest, content: stub(r, callOf(transcript, i, r.id)) };
      shed(r, cleared);
      return cleared;
    });
  }
  for (let i = 0; i < transcript.length && left > 0; i++) {
    const m = transcript[i];
    if (m?.role !== 'assistant') continue;
    const ran = transcript[i + 1];
    m.calls = m.calls.map((c) => {
      const result = ran?.role === 'tool_results' ? ran.results.find((r) => r.id === c.id) : undefined;
      if (left <= 0 || !result || result.isError || c.badJson !== undefined) return c;
      const summarized = summarizeInput(c.input);
      if (summarized === c.input) return c;
      report.summarizedInputs++;
      shed(c.input, summarized);
      return { ...c, input: summarized };
    });
  }
  return report;
}

const CLEARED = '[cleared to save context';

const skipImages = (key: string, value: unknown) => (key === 'images' ? undefined : value);

function callOf(transcript: readonly Message[], resultsAt: number, id: string): unknown {
  const m = transcript[resultsAt - 1];
  return m?.role === 'assistant' ? m.calls.find((c) => c.id === id)?.input : undefined;
}

/** The one line left of a cleared result: what it was and how to get it back. */
function stub(r: ToolResultMessage, input: unknown): string {
  const spill = /the whole output is in "([^"]+)"/.exec(r.content)?.[1];
  const again = spill
    ? `read_file "${spill}" has the whole output`
    : `run ${r.name} again with the same arguments (${clipJson(input, 200)}) to see it`;
  return `${CLEARED}: this ${r.name} result (${r.content.length} characters) was removed from the conversation; ${again}.]`;
}

const clipJson = (v: unknown, n: number) => {
  const s = JSON.stringify(v) ?? '';
  return s.length > n ? `${s.slice(0, n)}…` : s;
};

/** Large string arguments replaced by what they were; the call already ran, so nothing is lost on disk. */
function summarizeInput(input: unknown): unknown {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (typeof v === 'string' && v.length > LARGE_INPUT) {
      const lines = v.split('\n').length;
      out[k] =
        `[${v.length} characters, ${lines} lines: the call ran, so this argument was removed from the conversation to save context; read the file it wrote to see the result]`;
      changed = true;
    } else out[k] = v;
  }
  return changed ? out : input;
}

/** Images one request carries at most, and their base64 in all (Anthropic takes 100 and 32 MB a request). */
export const MAX_REQUEST_IMAGES = 20;
export const MAX_REQUEST_IMAGE_BYTES = 20 * 1024 * 1024;

/**
 * Keeps the newest images within what one request may carry, removing older ones from their results
 * (each result then says so): past the providers' limits every later request would fail. Returns how
 * many were removed.
 */
export function limitImages(transcript: Message[]): number {
  let count = 0;
  let bytes = 0;
  let removed = 0;
  for (let i = transcript.length - 1; i >= 0; i--) {
    const m = transcript[i];
    if (m?.role !== 'tool_results') continue;
    m.results = m.results.map((r) => {
      if (!r.images?.length) return r;
      const kept = r.images.filter((img) => {
        const fits = count < MAX_REQUEST_IMAGES && bytes + img.data.length <= MAX_REQUEST_IMAGE_BYTES;
        if (fits) [count, bytes] = [count + 1, bytes + img.data.length];
        return fits;
      });
      const gone = r.images.length - kept.length;
      if (gone === 0) return r;
      removed += gone;
      const { images: _all, ...rest } = r;
      const note = `\n[${gone} image${gone === 1 ? '' : 's'} of this result removed to keep the request within the providers' limits; read the file again to see ${gone === 1 ? 'it' : 'them'}]`;
      return { ...rest, content: r.content + note, ...(kept.length ? { images: kept } : {}) };
    });
  }
  return removed;
}
