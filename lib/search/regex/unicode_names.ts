/**
 * Rust's names for Unicode classes mapped to JavaScript's: loose matching (case, spaces, `_` and `-`
 * ignored), a bare name tried as a general category, then a script, then a binary property, as Rust
 * does; `gc=`, `sc=`, `scx=` (also with `:` or `!=`) for the explicit forms.
 */
import { errValue, okValue, type Result } from '../../core/result.ts';
import { BINARY_PROPERTIES, GENERAL_CATEGORIES, SCRIPTS } from './unicode_data.ts';

const loose = (s: string) => s.toLowerCase().replace(/[\s_-]/g, '');

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
  if (m) {
    const key = KEYS[loose(m[1] as string)];
    found = key ? t[key].get(loose(m[3] as string)) : undefined;
  } else {
    const n = loose(name);
    found = t.gc.get(n) ?? t.sc.get(n) ?? t.bin.get(n);
  }
  if (found === undefined)
    return errValue(
      `Unicode property not found: "${name}" (use a general category such as L or Lu, a script such as Greek, or a binary property such as Alphabetic)`,
    );
  return okValue({ name: found, negated: m?.[2] === '!=' });
}
