/**
 * Anthropic wire forms of our tools. The whole JSON Schema goes into `input_schema`: no keyword is
 * dropped (the seed kept only properties/required). Main thread; the SDK itself is imported lazily by
 * the code that calls the model, never here.
 */
import type { ToolDefinition } from '../core/registry.ts';

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: { type: 'object'; [key: string]: unknown };
}

export function toAnthropicTools(defs: readonly ToolDefinition[]): AnthropicTool[] {
  return defs.map((d) => ({ name: d.name, description: d.description, input_schema: structuredClone(d.inputSchema) }));
}
