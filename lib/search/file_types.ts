/**
 * ripgrep's common file types (`rg --type-list` of ripgrep 13), for grep's `type` and the CLI's
 * `-t`/`-T`: a type is a list of globs matched against a file's name. Names and globs are copied
 * as ripgrep has them, so `-t ts` selects the same files in both.
 */
import picomatch from 'picomatch';
import { baseOf } from './rel_paths.ts';

const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ['*.[chH]', '*.[chH].in', '*.cats'],
  clojure: ['*.clj', '*.cljc', '*.cljs', '*.cljx'],
  cmake: ['*.cmake', 'CMakeLists.txt'],
  config: ['*.cfg', '*.conf', '*.config', '*.ini'],
  cpp: [
    '*.[ChH]',
    '*.[ChH].in',
    '*.[ch]pp',
    '*.[ch]pp.in',
    '*.[ch]xx',
    '*.[ch]xx.in',
    '*.cc',
    '*.cc.in',
    '*.hh',
    '*.hh.in',
    '*.inl',
  ],
  csharp: ['*.cs'],
  css: ['*.css', '*.scss'],
  csv: ['*.csv'],
  dart: ['*.dart'],
  diff: ['*.diff', '*.patch'],
  docker: ['*Dockerfile*'],
  elixir: ['*.eex', '*.ex', '*.exs'],
  erlang: ['*.erl', '*.hrl'],
  fish: ['*.fish'],
  go: ['*.go'],
  gradle: ['*.gradle'],
  groovy: ['*.gradle', '*.groovy'],
  h: ['*.h', '*.hpp'],
  haskell: ['*.c2hs', '*.cpphs', '*.hs', '*.hsc', '*.lhs'],
  html: ['*.ejs', '*.htm', '*.html'],
  java: ['*.java', '*.jsp', '*.jspx', '*.properties'],
  js: ['*.js', '*.jsx', '*.vue'],
  json: ['*.json', 'composer.lock'],
  jsonl: ['*.jsonl'],
  kotlin: ['*.kt', '*.kts'],
  less: ['*.less'],
  license: [
    '*[.-]LICEN[CS]E*',
    'AGPL-*[0-9]*',
    'APACHE-*[0-9]*',
    'BSD-*[0-9]*',
    'CC-BY-*',
    'COPYING',
    'COPYING[.-]*',
    'COPYRIGHT',
    'COPYRIGHT[.-]*',
    'EULA',
    'EULA[.-]*',
    'GFDL-*[0-9]*',
    'GNU-*[0-9]*',
    'GPL-*[0-9]*',
    'LGPL-*[0-9]*',
    'LICEN[CS]E',
    'LICEN[CS]E[.-]*',
    'MIT-*[0-9]*',
    'MPL-*[0-9]*',
    'NOTICE',
    'NOTICE[.-]*',
    'OFL-*[0-9]*',
    'PATENTS',
    'PATENTS[.-]*',
    'UNLICEN[CS]E',
    'UNLICEN[CS]E[.-]*',
    'agpl[.-]*',
    'gpl[.-]*',
    'lgpl[.-]*',
    'licen[cs]e',
    'licen[cs]e.*',
  ],
  lock: ['*.lock', 'package-lock.json'],
  log: ['*.log'],
  lua: ['*.lua'],
  make: [
    '*.mak',
    '*.mk',
    '[Gg][Nn][Uu]makefile',
    '[Gg][Nn][Uu]makefile.am',
    '[Gg][Nn][Uu]makefile.in',
    '[Mm]akefile',
    '[Mm]akefile.am',
    '[Mm]akefile.in',
  ],
  markdown: ['*.markdown', '*.md', '*.mdown', '*.mkdn'],
  md: ['*.markdown', '*.md', '*.mdown', '*.mkdn'],
  nix: ['*.nix'],
  objc: ['*.h', '*.m'],
  ocaml: ['*.ml', '*.mli', '*.mll', '*.mly'],
  perl: ['*.PL', '*.perl', '*.pl', '*.plh', '*.plx', '*.pm', '*.t'],
  php: ['*.php', '*.php3', '*.php4', '*.php5', '*.phtml'],
  protobuf: ['*.proto'],
  py: ['*.py'],
  r: ['*.R', '*.Rmd', '*.Rnw', '*.r'],
  readme: ['*README', 'README*'],
  rst: ['*.rst'],
  ruby: ['*.gemspec', '*.rb', '*.rbw', '.irbrc', 'Gemfile', 'Rakefile', 'config.ru'],
  rust: ['*.rs'],
  sass: ['*.sass', '*.scss'],
  scala: ['*.sbt', '*.scala'],
  sh: [
    '*.bash',
    '*.bashrc',
    '*.csh',
    '*.cshrc',
    '*.ksh',
    '*.kshrc',
    '*.sh',
    '*.tcsh',
    '*.zsh',
    '.bash_login',
    '.bash_logout',
    '.bash_profile',
    '.bashrc',
    '.cshrc',
    '.kshrc',
    '.login',
    '.logout',
    '.profile',
    '.tcshrc',
    '.zlogin',
    '.zlogout',
    '.zprofile',
    '.zshenv',
    '.zshrc',
    'bash_login',
    'bash_logout',
    'bash_profile',
    'bashrc',
    'profile',
    'zlogin',
    'zlogout',
    'zprofile',
    'zshenv',
    'zshrc',
  ],
  sql: ['*.psql', '*.sql'],
  svg: ['*.svg'],
  swift: ['*.swift'],
  tex: ['*.bib', '*.cls', '*.dtx', '*.ins', '*.ltx', '*.sty', '*.tex'],
  tf: ['*.tf'],
  toml: ['*.toml', 'Cargo.lock'],
  ts: ['*.ts', '*.tsx'],
  txt: ['*.txt'],
  vim: ['*.vim'],
  xml: ['*.dtd', '*.rng', '*.sch', '*.xhtml', '*.xjb', '*.xml', '*.xml.dist', '*.xsd', '*.xsl', '*.xslt'],
  yaml: ['*.yaml', '*.yml'],
  zig: ['*.zig'],
  zsh: [
    '*.zsh',
    '.zlogin',
    '.zlogout',
    '.zprofile',
    '.zshenv',
    '.zshrc',
    'zlogin',
    'zlogout',
    'zprofile',
    'zshenv',
    'zshrc',
  ],
};

/** The globs of the named types, or the unknown name. */
export function typeGlobs(names: readonly string[]): { globs: string[] } | { unknown: string } {
  const globs: string[] = [];
  for (const name of names) {
    const g = Object.hasOwn(FILE_TYPES, name) ? FILE_TYPES[name] : undefined;
    if (!g) return { unknown: name };
    globs.push(...g);
  }
  return { globs };
}

export const typeNames = () => Object.keys(FILE_TYPES).join(', ');

/** Every type and its globs, by name (rg --type-list). */
export const typeTable = (): [string, readonly string[]][] =>
  Object.entries(FILE_TYPES).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * Which files a search looks at, ripgrep-style. `globs` in order, a later one winning: a file is
 * excluded by the last `!glob` it matches unless a later positive glob matches it, and when any
 * positive glob is given, a file must match one. A glob without `/` matches a name at any depth and
 * (negated) excludes a directory of that name with everything in it. `types`: the file's name must
 * match one of these globs too.
 */
export interface FileFilterSpec {
  globs?: readonly string[];
  types?: readonly string[];
}

/** The filter as a function of a path relative to the search directory; undefined when it lets all through. */
export function compileFileFilter(spec: FileFilterSpec): ((rel: string) => boolean) | undefined {
  const globs = spec.globs ?? [];
  const verdictOf = globVerdict(globs);
  const anyPositive = globs.some((g) => !g.startsWith('!'));
  const typeMatch = spec.types?.length ? picomatch([...spec.types], { dot: true }) : undefined;
  if (!globs.length && !typeMatch) return undefined;
  return (rel) => {
    if (typeMatch && !typeMatch(baseOf(rel))) return false;
    return verdictOf(rel) ?? !anyPositive;
  };
}

/**
 * What ripgrep's globs say of a file: the last one that matches decides (true: a positive glob, false:
 * a `!` one), undefined when none matches. A glob without a slash matches the file's name (a negated
 * one any path segment); with a slash, the whole path.
 */
export function globVerdict(globs: readonly string[]): (rel: string) => boolean | undefined {
  const rules = globs.map((g) => {
    const negated = g.startsWith('!');
    const body = negated ? g.slice(1) : g;
    const anchored = body.includes('/');
    const m = picomatch(body.replace(/^\//, ''), { dot: true });
    return { negated, anchored, m };
  });
  return (rel) => {
    const parts = rel.split('/');
    const name = parts.at(-1) ?? rel;
    let verdict: boolean | undefined;
    for (const r of rules) {
      const hit = r.anchored ? r.m(rel) : r.negated ? parts.some((p) => r.m(p)) : r.m(name);
      if (hit) verdict = !r.negated;
    }
    return verdict;
  };
}

/** Validates globs (picomatch throws on a broken one): the message for the first bad glob, if any. */
export function badGlob(globs: readonly string[]): string | undefined {
  for (const g of globs) {
    try {
      picomatch(g.startsWith('!') ? g.slice(1) : g, { strictBrackets: true });
    } catch (e) {
      return `Invalid glob "${g}": ${(e as Error).message}`;
    }
  }
  return undefined;
}
