/**
 * Islands of the single-file bundle: packages it carries as text in comments at its end (the model
 * SDKs, MCP, the bash parser: 2.2 of 2.6 MB), compressed, and compiled on first use, so a command
 * that never uses them does not pay for parsing them (scripts/build_islands.ts makes them; measured
 * there). Not used when running from source.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { brotliCompressSync, brotliDecompressSync, constants as zlib } from 'node:zlib';

declare const __MEWCODE_BUILD_ID__: string | undefined;

/** Starts an island's comment: `/*mewcode-island BUILD NAME` on a line of its own. */
export const ISLAND_MARK = 'mewcode-island';
/**
 * An island's text in its comment: brotli-compressed, in base64 (which holds no comment end). Compressed,
 * the islands are a quarter of their size, which is what every start decodes (the whole file, as UTF-8)
 * and scans; an island is decompressed when first used (~14 ms for the largest).
 */
export const islandComment = (text: string) =>
  brotliCompressSync(Buffer.from(text, 'utf8'), { params: { [zlib.BROTLI_PARAM_QUALITY]: 9 } }).toString('base64');
const islandText = (comment: string) => brotliDecompressSync(Buffer.from(comment, 'base64')).toString('utf8');

/** What an island's code is a function of: CommonJS's names, the bundle's URL and the host list. */
export const ISLAND_PARAMS = { url: '__mewcodeUrl', host: '__mewcodeHost' } as const;
const PARAMS = ['exports', 'require', 'module', '__filename', '__dirname', ISLAND_PARAMS.url, ISLAND_PARAMS.host];

const loaded = new Map<string, Record<string, unknown>>();

/**
 * The exports of island `name` of this file (its module.exports), compiled the first time it is asked
 * for; `host` lists the modules of the start that the island takes instead of holding copies.
 */
export function island(name: string, host: readonly unknown[] = []): Record<string, unknown> {
  const known = loaded.get(name);
  if (known) return known;
  const file = fileURLToPath(import.meta.url);
  const build = typeof __MEWCODE_BUILD_ID__ === 'string' ? __MEWCODE_BUILD_ID__ : 'source';
  const text = readFileSync(file, 'latin1');
  const head = `\n/*${ISLAND_MARK} ${build} ${name}\n`;
  const at = text.lastIndexOf(head);
  const end = at < 0 ? -1 : text.indexOf('\n*/', at + head.length);
  if (end < 0)
    throw new Error(`${file} does not hold this build's "${name}" module: it was replaced since this process started`);
  const source = islandText(text.slice(at + head.length, end));
  const module = { exports: {} as Record<string, unknown> };
  const run = vm.compileFunction(source, PARAMS, { filename: `${file}#${name}` });
  run(module.exports, createRequire(file), module, file, path.dirname(file), pathToFileURL(file).href, host);
  loaded.set(name, module.exports);
  return module.exports;
}
