/**
 * rg -r: each match in the lines shown replaced by a text in which `$1`, `${1}`, `$name`, `${name}`
 * stand for the match's groups (`$0` the whole match) and `$$` for a dollar sign, as in rg. Made from
 * the tool's data: each match and where its groups are (`GrepLine.captures`), found by the search
 * itself, in a worker under the deadline when the pattern could backtrack; nothing runs the pattern
 * here. Only the pattern's group names are read, from its compiled form. Main thread.
 */
import type { Captures, GrepData, GrepLine } from '../core/answers.ts';
import { compilePattern } from '../search/pattern.ts';
import { UsageError } from './args.ts';

/** The lines of `d` with each match replaced; the replacements are the new spans (they are what matched). */
export function replaceMatches(d: GrepData, input: Record<string, unknown>, replacement: string): GrepData {
  if (input.multiline)
    throw new UsageError(
      '-r with -U is not supported: rg replaces a match over several lines in one piece, and grep answers line by line.',
    );
  const compiled = compilePattern(input.pattern as string, {
    ignoreCase: input.case_insensitive === true,
    fixedStrings: input.fixed_strings === true,
    multiline: false,
  });
  // The search compiled the same pattern, so this cannot fail; a bug if it does.
  if (!compiled.ok) throw new Error(`-r: the pattern searched does not compile: ${compiled.error}`);
  const names = compiled.value.spec.groupNames;
  // An inverted search's lines hold no match: rg -v -r prints them as they are.
  return {
    ...d,
    lines: d.lines.map((l) => (l.match && l.captures ? replaceLine(l, l.captures, names, replacement) : l)),
  };
}

function replaceLine(
  l: GrepLine,
  captures: Captures,
  names: readonly (string | undefined)[],
  replacement: string,
): GrepLine {
  let text = '';
  let at = 0;
  const spans: [number, number][] = [];
  for (const groups of captures) {
    const [start, end] = groups[0] as [number, number];
    const replaced = expand(
      replacement,
      (k) => {
        const g = groups[k];
        return g ? l.text.slice(g[0], g[1]) : '';
      },
      names,
    );
    text += l.text.slice(at, start);
    spans.push([text.length, text.length + replaced.length]);
    text += replaced;
    at = end;
  }
  return { ...l, text: text + l.text.slice(at), spans };
}

/**
 * rg's replacement syntax: `$$`; `${group}`; `$group`, its name the longest run of [0-9A-Za-z_]
 * (braced too: `${}` and `${a b}` are text); a group by number, or by name (`names[k]` is group k's);
 * a group that does not exist is empty.
 */
function expand(replacement: string, group: (k: number) => string, names: readonly (string | undefined)[]): string {
  return replacement.replace(
    /\$(\$|\{([0-9A-Za-z_]+)\}|([0-9A-Za-z_]+))/g,
    (all, _, braced?: string, bare?: string) => {
      if (all === '$$') return '$';
      const name = (braced ?? bare) as string;
      const k = /^[0-9]+$/.test(name) ? Number(name) : names.indexOf(name);
      return k >= 0 && k < names.length ? group(k) : '';
    },
  );
}
