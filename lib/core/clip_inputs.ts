/**
 * Error messages that quote an input clip it: a 5 MB `file_path` must not come back as a 5 MB error
 * (an MCP client drops a connection whose reply passes its limit, and a model pays for every byte).
 * `clipQuotedInputs` finds each long string of the call's input (values, keys, the tool's name) in an
 * error result — as given, JSON-escaped or control-escaped, whole or as a long prefix (a message the
 * output budget already cut) — and keeps its first 200 characters with a count. Pure.
 */
import { escapeControl } from './text.ts';
import type { ToolResult } from './tool_result.ts';

const QUOTE_LIMIT = 200;

/** `s` clipped to QUOTE_LIMIT characters, saying how long it was. */
export const clipQuoted = (s: string): string =>
  s.length > QUOTE_LIMIT ? `${s.slice(0, QUOTE_LIMIT)}… [${s.length} characters]` : s;

export function clipQuotedInputs(r: ToolResult, name: string, input: unknown): ToolResult {
  if (!r.isError || r.content.length <= QUOTE_LIMIT) return r;
  const long = new Set<string>();
  // A caller without types may name no string at all: its error still comes back, as is.
  if (typeof name === 'string' && name.length > QUOTE_LIMIT) long.add(name);
  collect(input, long, 0);
  if (long.size === 0) return r;
  let content = r.content;
  for (const s of long)
    for (const form of new Set([s, escapeControl(s), JSON.stringify(s).slice(1, -1)]))
      content = clipRuns(content, form);
  return content === r.content ? r : { ...r, content };
}

function collect(v: unknown, into: Set<string>, depth: number): void {
  if (typeof v === 'string') {
    if (v.length > QUOTE_LIMIT) into.add(v);
  } else if (v && typeof v === 'object' && depth < 8) {
    for (const [k, x] of Object.entries(v)) {
      if (k.length > QUOTE_LIMIT) into.add(k);
      collect(x, into, depth + 1);
    }
  }
}

/** Every run of `content` that repeats more than QUOTE_LIMIT leading characters of `s`, clipped. */
function clipRuns(content: string, s: string): string {
  const head = s.slice(0, QUOTE_LIMIT + 1);
  let out = '';
  let from = 0;
  for (let at = content.indexOf(head); at !== -1; at = content.indexOf(head, from)) {
    let n = head.length;
    while (n < s.length && at + n < content.length && content.charCodeAt(at + n) === s.charCodeAt(n)) n++;
    out += `${content.slice(from, at)}${s.slice(0, QUOTE_LIMIT)}… [${n === s.length ? s.length : `${n} of ${s.length}`} characters]`;
    from = at + n;
  }
  return from === 0 ? content : out + content.slice(from);
}
