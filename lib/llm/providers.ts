/**
 * Choosing a provider: keys and base URLs from options or the environment, with an error that names
 * the variable to set when a key is missing. Nothing here imports an SDK. Main thread.
 */
import { errValue, okValue, type Result } from '../core/result.ts';
import { anthropicProvider } from './anthropic.ts';
import { openaiProvider } from './openai.ts';
import type { Provider } from './provider.ts';

export const PROVIDERS = ['anthropic', 'openai'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/**
 * Current models from the installed SDKs' model lists, none in their deprecated lists (a test checks
 * this against the SDKs). MEWCODE_MODEL, the settings' `model` and --model override them.
 */
export const DEFAULT_MODELS: Record<ProviderName, string> = { anthropic: 'claude-sonnet-5-5', openai: 'gpt-5.4' };

/** The model a run uses: --model, else MEWCODE_MODEL, else the settings' `model`, else the provider's default. */
export function chooseModel(
  provider: ProviderName,
  o: { flag?: string | undefined; settings?: string | undefined; env?: NodeJS.ProcessEnv },
): string {
  return o.flag || (o.env ?? process.env).MEWCODE_MODEL || o.settings || DEFAULT_MODELS[provider];
}
const KEY_VARS: Record<ProviderName, string> = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY' };
const URL_VARS: Record<ProviderName, string> = { anthropic: 'ANTHROPIC_BASE_URL', openai: 'OPENAI_BASE_URL' };

interface ProviderChoice {
  provider: ProviderName;
  apiKey?: string;
  baseURL?: string;
  maxRetries?: number;
  env?: NodeJS.ProcessEnv;
}

export function makeProvider(c: ProviderChoice): Result<Provider, string> {
  const env = c.env ?? process.env;
  const baseURL = c.baseURL ?? env[URL_VARS[c.provider]];
  // A local OpenAI-compatible server (vLLM, llama.cpp, Ollama) needs no real key.
  const apiKey = c.apiKey ?? env[KEY_VARS[c.provider]] ?? (c.provider === 'openai' && baseURL ? 'local' : undefined);
  if (!apiKey) {
    return errValue(
      `No API key for ${c.provider}: set ${KEY_VARS[c.provider]} (or use --provider ${c.provider === 'anthropic' ? 'openai' : 'anthropic'}, or --base-url for a local OpenAI-compatible server).`,
    );
  }
  const o = {
    apiKey,
    ...(baseURL ? { baseURL } : {}),
    ...(c.maxRetries !== undefined ? { maxRetries: c.maxRetries } : {}),
  };
  return okValue(c.provider === 'anthropic' ? anthropicProvider(o) : openaiProvider(o));
}
