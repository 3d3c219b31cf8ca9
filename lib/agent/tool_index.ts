/**
 * A search index over tool definitions, for tool_search: a query that is a tool's whole name (or the
 * tool's own part of an `mcp__<server>__<tool>` name) ranks that tool first, then tools whose name
 * starts with the query, then the rest by BM25 over the name's words (server and tool parts, split on
 * `__`, `_`, `-` and camelCase), the description and the parameters' names and descriptions. Words
 * are lower-cased, common English words dropped and plurals and verb endings folded, so "issues" finds
 * `create_issue`. Pure and synchronous; main thread.
 */

export interface Searchable {
  name: string;
  description: string;
  inputSchema: { properties?: Record<string, unknown> };
}

export interface IndexOptions {
  /** Index the parameters' descriptions too (default true: measured to find more, see docs/agent.md). */
  paramDescriptions?: boolean;
  /** Look for a query word's synonyms too (default true). */
  synonyms?: boolean;
}

export type Tier = 'exact' | 'prefix' | 'text';

export interface Hit<T> {
  tool: T;
  tier: Tier;
  score: number;
}

export interface ToolIndex<T> {
  /** The best `max` matches, best first; none when nothing in the query matches. */
  search(query: string, max: number): Hit<T>[];
}

/** BM25's usual constants: term-frequency saturation and length normalization. */
const K1 = 1.2;
const B = 0.75;
/** A word of the name counts as this many words of the description: names are what a model recalls. */
const NAME_WEIGHT = 3;

const STOP = new Set(
  (
    'a an and any are as at be by can do for from how i in into is it its me my of on or our please so some ' +
    'that the their them then there these this to us we what when where which who will with you your'
  ).split(' '),
);

/**
 * Words that name the same thing in API descriptions and in requests: a query's word also looks for
 * the others of its group, at a lower weight than its own. General software vocabulary, not any one
 * server's.
 */
const SYNONYMS: readonly string[] = [
  'create add new open make',
  'search find lookup look',
  'get fetch read show view see retrieve',
  'list all enumerate',
  'delete remove erase drop destroy',
  'update edit change modify',
  'send post notify tell announce inform',
  'stop halt shutdown',
  'restart reboot bounce',
  'cancel abort',
  'run execute trigger kick',
  'approve accept',
  'issue ticket bug',
  'pr pull',
  'mr merge',
  'database db',
  'page doc document wiki article',
  'event meeting sync appointment',
  'contact lead',
  'user people person member',
  'instance vm server machine box host',
  'secret credential password token key',
  'log trace output',
  'error exception crash failure',
  'deploy rollout',
  'incident alert outage',
  'backup snapshot dump',
  'put store save write upload',
  'email mail',
  'channel room',
  'repository repo',
  'container pod',
];

/** Folds the endings that vary between a query and a definition: plurals, -ing, -ed, a final e. */
export function stem(w: string): string {
  let s = w;
  if (s.length > 4 && s.endsWith('ies')) s = `${s.slice(0, -3)}y`;
  else if (s.length > 3 && s.endsWith('s') && !s.endsWith('ss') && !s.endsWith('us')) s = s.slice(0, -1);
  if (s.length > 5 && s.endsWith('ing')) s = s.slice(0, -3);
  else if (s.length > 4 && s.endsWith('ed')) s = s.slice(0, -2);
  // running → runn → run: a doubled final consonant left by the ending.
  if (s.length > 3 && s.at(-1) === s.at(-2) && !'aeiouls'.includes(s.at(-1) ?? '')) s = s.slice(0, -1);
  if (s.length > 3 && s.endsWith('e')) s = s.slice(0, -1);
  return s;
}

/** The words of a text or a name: camelCase split, lower-cased, stop words dropped, stemmed. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0 && w !== 'mcp' && !STOP.has(w))
    .map(stem);
}

/** Each stemmed word's synonyms, stemmed. */
const RELATED: ReadonlyMap<string, readonly string[]> = (() => {
  const m = new Map<string, string[]>();
  for (const group of SYNONYMS) {
    const g = group.split(' ').map(stem);
    for (const w of g) m.set(w, [...(m.get(w) ?? []), ...g.filter((x) => x !== w)]);
  }
  return m;
})();

/** A synonym counts this much of the query's own word. */
const SYNONYM_WEIGHT = 0.4;

/** The query's words with their weights: its own at 1, their synonyms lower. */
function queryTerms(query: string, expand: boolean): Map<string, number> {
  const own = words(query);
  const terms = new Map(own.map((w) => [w, 1]));
  if (!expand) return terms;
  for (const w of own) for (const r of RELATED.get(w) ?? []) if (!terms.has(r)) terms.set(r, SYNONYM_WEIGHT);
  return terms;
}

/** The tool's own part of an MCP name (`mcp__server__tool` → `tool`); the name itself otherwise. */
export const ownName = (name: string): string => /^mcp__.+?__(.+)$/.exec(name)?.[1] ?? name;

function documentOf(t: Searchable, o: IndexOptions): string[] {
  const name = words(t.name);
  const doc: string[] = [];
  for (let i = 0; i < NAME_WEIGHT; i++) doc.push(...name);
  doc.push(...words(t.description));
  for (const [param, spec] of Object.entries(t.inputSchema.properties ?? {})) {
    doc.push(...words(param));
    const d = (spec as { description?: unknown } | null)?.description;
    if (o.paramDescriptions !== false && typeof d === 'string') doc.push(...words(d));
  }
  return doc;
}

export function toolIndex<T extends Searchable>(tools: readonly T[], o: IndexOptions = {}): ToolIndex<T> {
  const docs = tools.map((t) => {
    const tf = new Map<string, number>();
    const doc = documentOf(t, o);
    for (const w of doc) tf.set(w, (tf.get(w) ?? 0) + 1);
    return { tool: t, tf, length: doc.length, full: t.name.toLowerCase(), own: ownName(t.name).toLowerCase() };
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d.tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const avg = docs.reduce((n, d) => n + d.length, 0) / Math.max(1, docs.length);
  const idf = (w: string) => {
    const n = df.get(w) ?? 0;
    return Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
  };
  const bm25 = (d: (typeof docs)[number], terms: ReadonlyMap<string, number>) => {
    let score = 0;
    for (const [w, weight] of terms) {
      const f = d.tf.get(w) ?? 0;
      if (f) score += (weight * idf(w) * f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.length) / avg));
    }
    return score;
  };
  return {
    search(query, max) {
      // Quotes and backticks around a name are the model's markup, not part of it.
      const q = query
        .trim()
        .replace(/^[`'"]+|[`'"]+$/g, '')
        .toLowerCase();
      const terms = queryTerms(query, o.synonyms !== false);
      // Names the query holds whole: itself, or any of its words that looks like a tool name.
      const named = new Set([q, ...q.split(/[\s,`'"]+/).filter((w) => w.includes('_'))]);
      const hits: Hit<T>[] = [];
      for (const d of docs) {
        const score = bm25(d, terms);
        const tier: Tier | undefined =
          named.has(d.full) || named.has(d.own)
            ? 'exact'
            : q.length >= 3 && !/\s/.test(q) && (d.full.startsWith(q) || d.own.startsWith(q))
              ? 'prefix'
              : score > 0
                ? 'text'
                : undefined;
        if (tier) hits.push({ tool: d.tool, tier, score });
      }
      const rank: Record<Tier, number> = { exact: 0, prefix: 1, text: 2 };
      hits.sort((a, b) => rank[a.tier] - rank[b.tier] || b.score - a.score || (a.tool.name < b.tool.name ? -1 : 1));
      return hits.slice(0, Math.max(0, max));
    },
  };
}
