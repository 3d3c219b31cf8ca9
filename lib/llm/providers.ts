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
  /** How the caller names `baseURL` in an error (the CLI: `--base-url`; default: `baseURL`). */
  baseURLName?: string;
  maxRetries?: number;
  env?: NodeJS.ProcessEnv;
}

export function makeProvider(c: ProviderChoice): Result<Provider, string> {
  const env = c.env ?? process.env;
  const given = c.baseURL ?? env[URL_VARS[c.provider]];
  let baseURL: string | undefined;
  if (c.baseURL !== undefined && c.baseURL.trim() === '')
    return errValue(
      `${c.baseURLName ?? 'baseURL'} is empty: give the server's URL, such as http://127.0.0.1:11434/v1.`,
    );
  if (given) {
    const checked = checkBaseURL(c.provider, given, c.baseURL ? (c.baseURLName ?? 'baseURL') : URL_VARS[c.provider]);
    if (!checked.ok) return checked;
    baseURL = checked.value;
  }
  // A local OpenAI-compatible server (vLLM, llama.cpp, Ollama) needs no real key.
  const apiKey = c.apiKey ?? env[KEY_VARS[c.provider]] ?? (c.provider === 'openai' && baseURL ? 'local' : undefined);
  if (!apiKey) {
    const other = c.provider === 'anthropic' ? 'openai' : 'anthropic';
    return errValue(
      baseURL && c.provider === 'anthropic'
        ? `No API key for anthropic: set ANTHROPIC_API_KEY, or add --provider openai if ${given} is an OpenAI-compatible server (vLLM, llama.cpp, Ollama), which needs no key.`
        : `No API key for ${c.provider}: set ${KEY_VARS[c.provider]} (or use --provider ${other}, or --provider openai --base-url for a local OpenAI-compatible server).`,
    );
  }
  const o = {
    apiKey,
    ...(baseURL ? { baseURL } : {}),
    ...(c.maxRetries !== undefined ? { maxRetries: c.maxRetries } : {}),
  };
  return okValue(c.provider === 'anthropic' ? anthropicProvider(o) : openaiProvider(o));
}

/**
 * A base URL as the SDK will use it, or why it cannot be one: an http(s) URL with a host and a usable
 * port, said at once rather than found out by five failed connections. The Anthropic SDK appends
 * `/v1/messages` itself, so a URL ending in `/v1` (as OpenAI-compatible ones do) loses it; the
 * OpenAI SDK appends `/chat/completions`, so its `/v1` stays.
 */
export function checkBaseURL(provider: ProviderName, raw: string, name: string): Result<string, string> {
  const text = raw.trim();
  const shown = JSON.stringify(raw);
  const schemeless = !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text);
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    // `localhost:99999/v1` is no URL either way: say what is wrong with it.
  }
  if (schemeless)
    return errValue(`${name} ${shown} has no scheme: write it as http://${text.replace(/^\/+/, '')} (or https://).`);
  if (!url) return errValue(`${name} ${shown} is not a valid URL (check the host and the port, 1 to 65535).`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return errValue(
      `${name} ${shown} has the scheme ${url.protocol.slice(0, -1)}; the model APIs are reached over http:// or https://.`,
    );
  if (url.port === '0')
    return errValue(`${name} ${shown} has port 0; give the port the server listens on (1 to 65535).`);
  const base = text.replace(/\/+$/, '');
  return okValue(provider === 'anthropic' ? base.replace(/\/v1$/, '') : base);
}
