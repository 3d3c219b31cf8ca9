/**
 * The islands of the single-file bundle (lib/core/islands.ts): code that a start does not run, carried
 * compressed in comments at the file's end and compiled on first use. Parsing is what a start pays
 * for: measured on two cores (Node 20, `--version`, CPU time), the 2.6 MB file with everything as
 * code cost node -e 0 + 180 ms; with the packages below as islands, 441 KB of code left, + 60 ms; with
 * MewCode's own lazily loaded code an island too, see docs/library.md.
 *
 * - Package islands: the model SDKs, MCP, the bash parser and OpenTelemetry, one island per package family.
 * - The own island: every module of MewCode's that the start reaches only through a `require()` or
 *   a dynamic `import()` (the library, the commands, the read lane's worker), and all they import.
 * What the start imports statically (the argument parser, the help) stays code; the own island takes
 * those modules from it (the "host" list) rather than holding a second copy. Each package lives in
 * exactly one island, so nothing is ever loaded twice.
 */
import path from 'node:path';
import { type BuildOptions, build, type Metafile, type Plugin, type ResolveOptions } from 'esbuild';
import { ISLAND_INDEX_MARK, ISLAND_MARK, ISLAND_PARAMS, islandComment } from '../lib/core/islands.ts';

/** Island name → the packages it holds. */
const PACKAGE_ISLANDS: Record<string, string[]> = {
  'bash-parser': ['mvdan-sh'],
  anthropic: ['@anthropic-ai/sdk'],
  openai: ['openai'],
  mcp: ['@modelcontextprotocol/sdk'],
  // pdf.js (1.6 MB of the read lane's 2 MB): read only when a PDF is. A worker thread used to parse it
  // at every start.
  pdf: ['unpdf'],
  // Loaded only when an OTLP endpoint is configured (lib/telemetry/open_telemetry.ts).
  opentelemetry: [
    '@opentelemetry/api',
    '@opentelemetry/exporter-metrics-otlp-http',
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/resources',
    '@opentelemetry/sdk-metrics',
    '@opentelemetry/sdk-trace',
  ],
};
/**
 * Build options of a package island of its own. An island is compiled by vm.compileFunction, where an
 * `import()` has no loader: OpenTelemetry's exporter imports node:http so, made a require() here.
 */
const ISLAND_OPTIONS: Record<string, BuildOptions> = {
  opentelemetry: { supported: { 'dynamic-import': false } },
};
/** The island of MewCode's own lazily loaded modules. */
const OWN = 'mewcode';
/** The start's modules, as the own island's facades ask for them. */
const HOST = 'mewcode:host';

const packageIsland = (spec: string) =>
  Object.keys(PACKAGE_ISLANDS).find((n) => PACKAGE_ISLANDS[n]?.some((p) => spec === p || spec.startsWith(`${p}/`)));
const ours = (importer: string) => importer !== '' && !importer.includes(`${path.sep}node_modules${path.sep}`);
const lazyKind = (kind: string) => kind === 'dynamic-import' || kind === 'require-call';

/** esbuild's own resolution of an import, the plugins' own answers aside. */
const resolving = (a: { importer: string; resolveDir: string; kind: ResolveOptions['kind'] }): ResolveOptions => ({
  importer: a.importer,
  resolveDir: a.resolveDir,
  kind: a.kind,
  pluginData: 'resolving',
});

/** How a module is taken from its island: its names (ESM), or its module.exports (CommonJS). */
type Shape = { names: string[] } | 'commonjs';

interface Split {
  /** The modules the start imports statically (absolute paths), the entry itself left out. */
  host: string[];
  /** The own island's modules, in island order. */
  lazy: string[];
  /** The package islands' module specifiers, by island. */
  packages: Map<string, string[]>;
  shapes: Map<string, Shape>;
  /** MewCode's source files in the program and its islands (relative to the working directory). */
  sources: string[];
}

export interface IslandBuild {
  /** The plugin that resolves the program's imports of island modules to facades. */
  plugin: Plugin;
  /** The comments to append to the program. */
  text: string;
  /** MewCode's source files it was built from (relative to the working directory). */
  sources: string[];
}

/** Builds the islands of the program at `entry`; `common` are the esbuild options all builds share. */
export async function buildIslands(entry: string, common: BuildOptions, buildId: string): Promise<IslandBuild> {
  const split = await splitProgram(entry, common);
  let text = '';
  for (const [island, specs] of split.packages)
    text += comment(buildId, island, await islandSource(specs, { ...common, ...ISLAND_OPTIONS[island] }));
  if (split.lazy.length)
    text += comment(buildId, OWN, await islandSource(split.lazy, common, facades(split, true), hostModules(split)));
  // The read lane takes package islands as the program does: a worker compiles pdf.js when it reads a PDF.
  text += comment(buildId, 'read-lane', await islandSource(READ_LANE, common, facades(split, true)));
  return { plugin: facades(split, false, entry), text, sources: split.sources };
}

/**
 * The read lane's worker threads run an island of their own (lib/core/islands.ts
 * `readLaneWorkerScript`): Piscina's worker bootstrap, then the task handler, in that order. A thread
 * is an isolate of its own, so it shares nothing with the program and holds its own copies.
 */
const READ_LANE = [
  'piscina/dist/worker.js',
  path.resolve(path.dirname(new URL(import.meta.url).pathname), '../lib/runtime/pool_worker.ts'),
];

/** The line that ends the file: where each island's comment is in `file` (its final text). */
export function islandIndex(file: string, buildId: string): string {
  const ranges: Record<string, [number, number]> = {};
  for (const m of file.matchAll(new RegExp(`\\n/\\*${ISLAND_MARK} ${buildId} ([\\w-]+)\\n`, 'g'))) {
    const start = m.index ?? 0;
    ranges[m[1] as string] = [start, file.indexOf('\n*/', start + m[0].length)];
  }
  return `\n/*${ISLAND_INDEX_MARK} ${buildId} ${JSON.stringify(ranges)}*/\n`;
}

const comment = (buildId: string, island: string, source: string) =>
  `\n/*${ISLAND_MARK} ${buildId} ${island}\n${islandComment(source)}\n*/`;

/** Finds the start's modules and the lazy ones by building the program with every lazy import left out. */
async function splitProgram(entry: string, common: BuildOptions): Promise<Split> {
  const lazy = new Set<string>();
  const specs = new Set<string>();
  const collect: Plugin = {
    name: 'collect-islands',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === 'resolving') return undefined;
        if (packageIsland(args.path)) {
          specs.add(args.path);
          return { path: args.path, external: true };
        }
        if (!lazyKind(args.kind) || !ours(args.importer)) return undefined;
        const { path: real, errors } = await b.resolve(args.path, resolving(args));
        if (errors.length || !real) return undefined;
        lazy.add(real);
        return { path: real, external: true };
      });
    },
  };
  const plugins = [collect, ...(common.plugins ?? [])];
  const pass = async (o: BuildOptions): Promise<Metafile> =>
    (
      await build({
        ...common,
        entryPoints: [entry],
        write: false,
        minify: false,
        metafile: true,
        outdir: '/tmp',
        ...o,
      })
    ).metafile as Metafile;
  const r = await pass({ plugins });
  // The packages the lazy modules import, and every source the islands are built from.
  const whole = await pass({ plugins: [packagesLeftOut(specs), ...(common.plugins ?? [])] });
  const host = Object.keys(r.inputs)
    .map((f) => path.resolve(f))
    .filter((f) => f !== path.resolve(entry))
    .sort();
  const packages = new Map<string, string[]>();
  for (const s of [...specs].sort()) {
    const island = packageIsland(s) as string;
    packages.set(island, [...(packages.get(island) ?? []), s]);
  }
  const all = [...specs, ...lazy, ...host];
  const shapes = new Map<string, Shape>();
  for (const m of all) shapes.set(m, await exportShape(m, common));
  for (const h of host)
    if (shapes.get(h) === 'commonjs' || (shapes.get(h) as { names: string[] }).names.includes('default'))
      throw new Error(`${h}: a module the start and the island share must be ESM with named exports only`);
  const sources = Object.keys(whole.inputs).filter((f) => !f.includes('node_modules'));
  return { host, lazy: [...lazy].sort(), packages, shapes, sources };
}

function packagesLeftOut(specs: Set<string>): Plugin {
  return {
    name: 'packages-left-out',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (!packageIsland(args.path)) return undefined;
        specs.add(args.path);
        return { path: args.path, external: true };
      });
    },
  };
}

/** What a module exports, from esbuild's metafile (with `default` when it has one). */
async function exportShape(spec: string, common: BuildOptions): Promise<Shape> {
  const from = JSON.stringify(spec);
  const r =
    (await namesOf(`export * from ${from}; export { default } from ${from};`, common)) ??
    (await namesOf(`export * from ${from};`, common));
  if (!r) throw new Error(`island module ${spec}: esbuild could not read its exports`);
  return r.cjs ? 'commonjs' : { names: r.names };
}

async function namesOf(contents: string, common: BuildOptions): Promise<{ names: string[]; cjs: boolean } | undefined> {
  try {
    const r = await build({
      ...common,
      stdin: { contents, resolveDir: process.cwd() },
      write: false,
      metafile: true,
      minify: false,
      outfile: '/tmp/island-names.mjs',
      logLevel: 'silent',
    });
    const target = r.metafile.inputs['<stdin>']?.imports[0]?.path;
    const cjs = target !== undefined && r.metafile.inputs[target]?.format === 'cjs';
    return { names: Object.values(r.metafile.outputs)[0]?.exports ?? [], cjs };
  } catch {
    return undefined;
  }
}

/**
 * One island as CommonJS: `module.exports.m<i>()` loads its i-th module and gives what a require()
 * gives (an ESM module's namespace, a CommonJS one's module.exports). Each module is evaluated when
 * first asked for, as it would have been without the island.
 */
async function islandSource(mods: string[], common: BuildOptions, ...plugins: Plugin[]): Promise<string> {
  const all = mods.map((s, i) => `export const m${i} = () => require(${JSON.stringify(s)});`).join('\n');
  const r = await build({
    ...common,
    stdin: { contents: all, resolveDir: process.cwd() },
    format: 'cjs',
    write: false,
    outfile: '/tmp/island.cjs',
    banner: {},
    footer: {},
    // Compiled as a function of these (lib/core/islands.ts): the bundle's URL stands for import.meta.url.
    define: { ...common.define, 'import.meta.url': ISLAND_PARAMS.url },
    plugins: [...plugins, ...(common.plugins ?? [])],
  });
  return r.outputFiles[0]?.text ?? '';
}

/** Inside the own island: the start's modules, taken from the host list rather than copied. */
function hostModules(split: Split): Plugin {
  return {
    name: 'island-host',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        // Ours, or an absolute path (the patched Piscina asks for lib/core/islands.ts by one).
        const wanted = ours(args.importer) || path.isAbsolute(args.path);
        if (args.pluginData === 'resolving' || !wanted || packageIsland(args.path)) return undefined;
        const { path: real, errors } = await b.resolve(args.path, resolving(args));
        const i = errors.length ? -1 : split.host.indexOf(real);
        return i < 0 ? undefined : { path: String(i), namespace: 'island-host' };
      });
      b.onLoad({ filter: /.*/, namespace: 'island-host' }, (args) => ({
        contents: `module.exports = ${ISLAND_PARAMS.host}[${args.path}];`,
        loader: 'js',
      }));
    },
  };
}

/**
 * Resolves imports of island modules to facades that take them from `island(…)`: package modules
 * anywhere; with `entry` (the program's build), also its lazy imports of the own island's modules.
 */
function facades(split: Split, inOwnIsland: boolean, entry?: string): Plugin {
  const loader = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../lib/core/islands.ts');
  return {
    name: 'island-facades',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === 'resolving' || args.namespace === 'island') return undefined;
        if (packageIsland(args.path)) return { path: args.path, namespace: 'island', pluginData: args.kind };
        if (!entry || !lazyKind(args.kind) || !ours(args.importer)) return undefined;
        const { path: real, errors } = await b.resolve(args.path, resolving(args));
        if (errors.length || !split.lazy.includes(real)) return undefined;
        return { path: real, namespace: 'island', pluginData: args.kind };
      });
      b.onResolve({ filter: new RegExp(`^${HOST}$`) }, () => ({ path: HOST, namespace: 'island-host-list' }));
      b.onLoad({ filter: /.*/, namespace: 'island-host-list' }, () => ({
        contents: `${split.host.map((h, i) => `import * as h${i} from ${JSON.stringify(h)};`).join('\n')}\nexport const HOST = [${split.host.map((_, i) => `h${i}`).join(', ')}];`,
        loader: 'js',
        resolveDir: process.cwd(),
      }));
      b.onLoad({ filter: /.*/, namespace: 'island' }, (args) => ({
        contents: facadeSource(split, args.path, args.pluginData === 'require-call', loader, inOwnIsland),
        loader: 'js',
        resolveDir: process.cwd(),
      }));
    },
  };
}

/** The module standing for island module `mod`: its exports, taken from the island by name. */
function facadeSource(split: Split, mod: string, required: boolean, loader: string, inOwnIsland: boolean): string {
  const island = packageIsland(mod) ?? OWN;
  const list = island === OWN ? split.lazy : (split.packages.get(island) ?? []);
  const shape = split.shapes.get(mod);
  if (!shape) throw new Error(`island module ${mod}: its exports were not read`);
  const host = island === OWN && !inOwnIsland;
  const ns = `island(${JSON.stringify(island)}${host ? ', HOST' : ''}).m${list.indexOf(mod)}()`;
  const imports = [`import { island } from ${JSON.stringify(loader)};`, host ? `import { HOST } from '${HOST}';` : ''];
  // A require() gets module.exports: a CommonJS module's own, or an ESM module's namespace.
  if (required)
    return [
      `const { island } = require(${JSON.stringify(loader)});`,
      host ? `const { HOST } = require('${HOST}');` : '',
      `module.exports = ${ns};`,
    ].join('\n');
  if (shape === 'commonjs') return [...imports, `export default ${ns};`].join('\n');
  const named = shape.names.filter((n) => n !== 'default');
  const bad = named.find((n) => !/^[A-Za-z_$][\w$]*$/.test(n));
  if (bad) throw new Error(`island module ${mod}: export "${bad}" is not a plain name`);
  return [
    ...imports,
    `const m = ${ns};`,
    named.length ? `export const { ${named.join(', ')} } = m;` : '',
    shape.names.includes('default') ? 'export default m.default;' : '',
  ].join('\n');
}
