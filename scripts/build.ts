/**
 * `npm run build`: bundles MewCode into one file, dist/mewcode.mjs, which runs with plain `node` and
 * needs nothing beside it: the program, the library (`import { createRuntime } from './mewcode.mjs'`)
 * and the read lane's worker threads, which start on the same file (lib/bundle.ts says which it is).
 * No code splitting: a module reached by a dynamic `import()` or a `require()` (the model SDKs, MCP,
 * the agent, the bash parser, the library behind lib/bundle.ts's wrappers) is wrapped by esbuild and
 * evaluated on first use, so `--version` evaluates the argument parser only and parses the rest.
 * dist/build.json lists the sources, for bin/mewcode.mjs to tell whether dist/ is current. The
 * benchmark is not bundled.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type BuildOptions, build, type Plugin } from 'esbuild';
import { buildIslands, islandIndex } from './build_islands.ts';

const require = createRequire(import.meta.url);
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** `--out FILE` builds FILE (the tests build into a temp dir), build.json beside it. */
const outIndex = process.argv.indexOf('--out');
const outFile = path.resolve(outIndex > 0 ? (process.argv[outIndex + 1] as string) : 'dist/mewcode.mjs');
const outDir = path.dirname(outFile);

const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { version: string };

// Piscina starts each worker thread on its own dist/worker.js, a file the bundle does not have: in
// the bundle a worker thread runs the read-lane island instead, as an evaluated script
// (lib/core/islands.ts `readLaneWorkerScript`), and so holds that island alone, not the whole file.
const islandsModule = path.join(repo, 'lib/core/islands.ts');
const piscinaWorker: Plugin = {
  name: 'piscina-worker',
  setup(b) {
    // Not in the package's exports map; resolve it beside Piscina's main file.
    b.onResolve({ filter: /^piscina\/dist\/worker\.js$/ }, () => ({
      path: path.join(path.dirname(require.resolve('piscina')), 'worker.js'),
    }));
    b.onLoad({ filter: /piscina[\\/]dist[\\/]worker_pool[\\/]index\.js$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      const patched = src.replace(
        'new node_worker_threads_1.Worker(filename, workerOpts)',
        `new node_worker_threads_1.Worker(require(${JSON.stringify(islandsModule)}).readLaneWorkerScript(), { ...workerOpts, eval: true })`,
      );
      if (patched === src) throw new Error('piscina changed: the worker start to patch was not found');
      return { contents: patched, loader: 'js' };
    });
  },
};

// OpenTelemetry's packages (but the API) have no exports map, and esbuild takes their CommonJS `main`
// for Node, whose names an island's facade cannot read: their ES module build (`module`) is bundled.
const otelEsm: Plugin = {
  name: 'opentelemetry-esm',
  setup(b) {
    b.onResolve({ filter: /^@opentelemetry\/[\w-]+$/ }, async (args) => {
      if (args.pluginData === 'resolving') return undefined;
      const { kind, importer, resolveDir } = args;
      const found = await b.resolve(args.path, { kind, importer, resolveDir, pluginData: 'resolving' });
      if (found.errors.length) return undefined;
      let dir = path.dirname(found.path);
      while (!existsSync(path.join(dir, 'package.json')) && dir !== path.dirname(dir)) dir = path.dirname(dir);
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        module?: string;
        exports?: unknown;
      };
      return pkg.exports || !pkg.module ? undefined : { path: path.join(dir, pkg.module) };
    });
  },
};

// The bash parser's licence: its source carries none, and the bundle is all that is shipped.
const shParser = require.resolve('mvdan-sh');
const shLicence = readFileSync(path.join(path.dirname(shParser), 'LICENSE'), 'utf8');

if (outDir === path.join(repo, 'dist')) rmSync(outDir, { recursive: true, force: true });
const entry = path.join(repo, 'lib/bundle.ts');
const buildId = randomBytes(6).toString('hex');
const common: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  legalComments: 'inline',
  sourcemap: false,
  // Native modules cannot be inlined. Piscina's optional helper (thread priorities) is loaded in a
  // try; sharp (pictures for read_file) is used when installed beside the file, and without it a
  // picture within the model's limits is still shown (lib/media/image.ts).
  external: ['@napi-rs/nice', 'sharp'],
  // jsonc-parser's `main` is a UMD build whose requires esbuild cannot follow; its ES modules bundle.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  logLevel: 'warning',
  plugins: [piscinaWorker, otelEsm],
  define: {
    __MEWCODE_BUNDLE__: 'true',
    __MEWCODE_VERSION__: JSON.stringify(pkg.version),
    __MEWCODE_BUILD_ID__: JSON.stringify(buildId),
  },
};
const islands = await buildIslands(entry, common, buildId);
const result = await build({
  ...common,
  entryPoints: [entry],
  outfile: outFile,
  metafile: true,
  write: false,
  banner: {
    js: [
      '#!/usr/bin/env node',
      "import { createRequire as __mewcodeRequire } from 'node:module';",
      "import { fileURLToPath as __mewcodeFileURLToPath } from 'node:url';",
      'const require = __mewcodeRequire(import.meta.url);',
      'const __filename = __mewcodeFileURLToPath(import.meta.url);',
      "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
    ].join('\n'),
  },
  footer: { js: `/*! mvdan-sh (the bash parser):\n${shLicence.replaceAll('*/', '* /')}*/${islands.text}` },
  plugins: [islands.plugin, piscinaWorker, otelEsm],
});

/**
 * esbuild escapes non-ASCII characters in strings but keeps them in regular expression literals and
 * comments. One such character makes Node decode the whole file to a two-byte string: measured
 * +53 ms of decoding and a slower compile on every start, and twice the source's memory per thread.
 * A `\\uXXXX` escape means the same character in a string, a template, a regular expression (with or
 * without the u flag: a pair of surrogate escapes is one code point there) and an identifier.
 */
function asciiOnly(text: string): string {
  return text.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const [out] = result.outputFiles;
if (!out || result.outputFiles.length !== 1)
  throw new Error(`the build wrote ${result.outputFiles.length} files, not one`);
mkdirSync(outDir, { recursive: true });
const text = asciiOnly(out.text);
writeFileSync(outFile, text + islandIndex(text, buildId), { mode: 0o755 });

// What the bundle was built from, for bin/mewcode.mjs: sources newer than `builtAt` make it stale.
const sources = islands.sources.map((f) => path.relative(repo, path.resolve(f)));
writeFileSync(
  path.join(outDir, 'build.json'),
  `${JSON.stringify({ version: pkg.version, builtAt: Date.now(), entry: path.basename(outFile), sources: [...sources, 'package.json'] }, null, 1)}\n`,
);
// `--meta FILE`: esbuild's metafile (which sources went into the file), for the tests and for sizing.
const metaIndex = process.argv.indexOf('--meta');
if (metaIndex > 0) writeFileSync(process.argv[metaIndex + 1] as string, JSON.stringify(result.metafile));
process.stdout.write(`${path.relative(process.cwd(), outFile)}: ${(out.contents.length / 1024).toFixed(0)} KiB\n`);
