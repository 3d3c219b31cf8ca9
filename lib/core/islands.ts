/**
 * Islands of the single-file bundle: code it carries as text in comments at its end (the model SDKs,
 * MCP, the bash parser, MewCode's own commands and library, the read lane's worker), compressed, and
 * compiled on first use, so a command that never uses them does not pay for parsing them
 * (scripts/build_islands.ts makes them; measured there). Not used when running from source.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { brotliCompressSync, brotliDecompressSync, constants as zlib } from 'node:zlib';
import { withHeapHeld } from './heap_hold.ts';
import { readFdRange } from './read_fd.ts';

declare const __MEWCODE_BUILD_ID__: string | undefined;

/** Starts an island's comment: `/*mewcode-island BUILD NAME` on a line of its own. */
export const ISLAND_MARK = 'mewcode-island';
/** Starts the file's last line: where each island's text is, `{ name: [start, end] }` in bytes. */
export const ISLAND_INDEX_MARK = 'mewcode-island-index';

/**
 * An island's text in its comment: brotli-compressed, in base64 (which holds no comment end).
 * Compressed, the islands are a quarter of their size, which is what every start decodes (the whole
 * file, as UTF-8) and scans, and what each thread that loads the file holds as its source.
 */
export const islandComment = (text: string) =>
  brotliCompressSync(Buffer.from(text, 'utf8'), { params: { [zlib.BROTLI_PARAM_QUALITY]: 9 } }).toString('base64');

/** What an island's code is a function of: CommonJS's names, the bundle's URL and the host list. */
export const ISLAND_PARAMS = { url: '__mewcodeUrl', host: '__mewcodeHost' } as const;
const PARAMS = ['exports', 'require', 'module', '__filename', '__dirname', ISLAND_PARAMS.url, ISLAND_PARAMS.host];

const loaded = new Map<string, Record<string, unknown>>();
const bundleFile = () => fileURLToPath(import.meta.url);

/**
 * The exports of island `name` of this file (its module.exports), compiled the first time it is asked
 * for; `host` lists the modules of the start that the island takes instead of holding copies.
 */
export function island(name: string, host: readonly unknown[] = []): Record<string, unknown> {
  const known = loaded.get(name);
  if (known) return known;
  const file = bundleFile();
  const module = { exports: {} as Record<string, unknown> };
  withHeapHeld(() => {
    const run = vm.compileFunction(islandText(name), PARAMS, { filename: `${file}#${name}` });
    run(module.exports, createRequire(file), module, file, path.dirname(file), pathToFileURL(file).href, host);
  });
  loaded.set(name, module.exports);
  return module.exports;
}

/**
 * The program of a read-lane worker thread (run with `eval: true`): the `read-lane` island, whose
 * first module is Piscina's worker bootstrap and second the task handler. The thread then holds that
 * island alone, not this whole file. Piscina asks the thread for its task file by this file's path;
 * the island's own `require` answers with the handler, and finds any other module (sharp, installed
 * beside the file) from the file's place, not from the thread's working directory.
 */
export function readLaneWorkerScript(): string {
  const file = bundleFile();
  const wrapped = `(function (${PARAMS.join(', ')}) {\n${islandText('read-lane')}\n})`;
  return `'use strict';
const file = ${JSON.stringify(file)};
const url = ${JSON.stringify(pathToFileURL(file).href)};
const module = { exports: {} };
const beside = require('node:module').createRequire(file);
const own = (id) => (id === file || id === url ? { readLaneTask: (t) => module.exports.m1().readLaneTask(t) } : beside(id));
${wrapped}(module.exports, own, module, file, ${JSON.stringify(path.dirname(file))}, url, []);
module.exports.m0();
`;
}

/** An island's source, read from this file where its index says it is and decompressed. */
function islandText(name: string): string {
  const file = bundleFile();
  const build = typeof __MEWCODE_BUILD_ID__ === 'string' ? __MEWCODE_BUILD_ID__ : 'source';
  const replaced = () =>
    new Error(`${file} does not hold this build's "${name}" module: it was replaced since this process started`);
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const from = Math.max(0, size - 4096);
    const tail = readFdRange(fd, from, size - from).toString('latin1');
    const m = new RegExp(`\\n/\\*${ISLAND_INDEX_MARK} ${build} (\\{.*\\})\\*/\\n?$`).exec(tail);
    const range = m ? (JSON.parse(m[1] as string) as Record<string, [number, number]>)[name] : undefined;
    if (!range) throw replaced();
    const head = `\n/*${ISLAND_MARK} ${build} ${name}\n`;
    const bytes = readFdRange(fd, range[0], range[1] - range[0]).toString('latin1');
    if (!bytes.startsWith(head)) throw replaced();
    return brotliDecompressSync(Buffer.from(bytes.slice(head.length), 'base64')).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
