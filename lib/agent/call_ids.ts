/**
 * Every tool call in our transcript has its own id. Models send duplicate ids in one turn, or an empty
 * one (Anthropic `tool_use` with `id: ""`); answering those as given sends a result twice, or for `""`.
 * An id that is empty, not of the wire-safe form (letters, digits, _ and -, as Anthropic requires) or
 * already used in this run is replaced by a fresh one; both wires then get the same id on the call and
 * on its result. Main thread.
 */
import type { ToolCall } from '../llm/provider.ts';

const WIRE_SAFE = /^[A-Za-z0-9_-]{1,64}$/;

export function uniqueIds(calls: readonly ToolCall[], used: Set<string>, turn: number): ToolCall[] {
  return calls.map((c, k) => {
    let id = c.id;
    if (!WIRE_SAFE.test(id) || used.has(id)) {
      id = `call_mew_${turn}_${k}`;
      while (used.has(id)) id += '_';
    }
    used.add(id);
    return id === c.id ? c : { ...c, id };
  });
}
