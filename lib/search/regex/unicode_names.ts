/**
 * Rust's names for Unicode classes mapped to JavaScript's: loose matching (case, spaces, `_` and `-`
 * ignored), a bare name tried as a general category, then a script, then a binary property, as Rust
 * does; `gc=`, `sc=`, `scx=` (also with `:` or `!=`) for the explicit forms.
 */
import { errValue, okValue, type Result } from '../../core/result.ts';
import { BINARY_PROPERTIES, GENERAL_CATEGORIES, SCRIPTS } from './unicode_data.ts';

const loose = (s: string) => s.toLowerCase().replace(/[ _-]/g, '');

/**
 * Rust's normalization of a name the user wrote: also an `is` prefix dropped (`\p{IsGreek}`), except
 * that `isc` stays `isc` (ISO_Comment, unsupported), not the category C.
 */
function userLoose(s: string): string {
  const stripped = /^is/i.test(s) ? loose(s.slice(2)) : loose(s);
  return stripped === 'c' && /^is/i.test(s) ? 'isc' : stripped;
}

/**
 * Names Rust resolves to a property that is not binary (sc: Script, lc: Lowercase_Mapping) before it
 * tries categories, so `\p{Sc}` and `\p{LC}` are errors there; and values Rust's tables leave out
 * (surrogates, the Unknown script). Errors here too, never a different set.
 */
const RUST_REJECTS = new Set(['cs', 'surrogate', 'zzzz', 'unknown']);
const RUST_REJECTS_BARE = new Set(['sc', 'lc', ...RUST_REJECTS]);

function table(data: string, prefix: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const entry of data.split(' ')) {
    const aliases = entry.split(',');
    const canonical = aliases.at(-1) as string;
    for (const a of aliases) m.set(loose(a), prefix + canonical);
  }
  return m;
}

let tables: { gc: Map<string, string>; sc: Map<string, string>; scx: Map<string, string>; bin: Map<string, string> };
function load() {
  tables ??= {
    gc: table(GENERAL_CATEGORIES, 'General_Category='),
    sc: table(SCRIPTS, 'Script='),
    scx: table(SCRIPTS, 'Script_Extensions='),
    bin: table(BINARY_PROPERTIES, ''),
  };
  return tables;
}

const KEYS: Record<string, 'gc' | 'sc' | 'scx'> = {
  gc: 'gc',
  generalcategory: 'gc',
  sc: 'sc',
  script: 'sc',
  scx: 'scx',
  scriptextensions: 'scx',
};

/** The JavaScript `\p{…}` body for a Rust property name, and whether `!=` negated it. */
export function unicodeProperty(name: string): Result<{ name: string; negated: boolean }, string> {
  const t = load();
  const m = /^([^=:!]*)(!=|=|:)(.*)$/.exec(name);
  let found: string | undefined;
  if (m?.[2] === '!=')
    // rg 13 ignores the negation (`\p{gc!=Lu}` matches Lu), later versions honour it: an error, never
    // a meaning that depends on the rg version.
    return errValue(`"${name}": write \\P{${m[1]}=${m[3]}} instead of != (rg versions disagree on what != means)`);
  if (m) {
    const key = KEYS[userLoose(m[1] as string)];
    const value = userLoose(m[3] as string);
    found = key && !RUST_REJECTS.has(value) ? t[key].get(value) : undefined;
  } else {
    // Rust tries a binary property first, then a general category, then a script.
    const n = userLoose(name);
    found = RUST_REJECTS_BARE.has(n) ? undefined : (t.bin.get(n) ?? t.gc.get(n) ?? t.sc.get(n));
  }
  if (found === undefined)
    return errValue(
      `Unicode property not found: "${name}" (use a general category such as L or Lu (spelled out: Currency_Symbol, Cased_Letter), a script such as Greek, or a binary property such as Alphabetic; Age, Word_Break, Sentence_Break and Grapheme_Cluster_Break are not supported)`,
    );
  return okValue({ name: found, negated: m?.[2] === '!=' });
}
