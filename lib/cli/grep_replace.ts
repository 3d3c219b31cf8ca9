/**
 * rg -r: each match in the lines shown replaced by a text in which `$1`, `${1}`, `$name`, `${name}`
 * stand for the match's groups (`$0` the whole match) and `$$` for a dollar sign, as in rg. Made from
 * the tool's data: where each line matched (`GrepLine.spans`), each match run once more at its start
 * for its groups. The search finds spans only for a pattern that cannot backtrack, and only such a
 * pattern is run again here, on the main thread, where nothing could stop it. Main thread.
 */
import type { GrepData, GrepLine } from '../core/answers.ts';
import { compilePattern } from '../search/pattern.ts';
import { UsageError } from './args.ts';

/** The lines of `d` with each match replaced; the replacements are the new spans (they are what matched). */
export function replaceMatches(d: GrepData, input: Record<string, unknown>, replacement: string): GrepData {
  const compiled = compilePattern(input.pattern as string, {
    ignoreCase: input.case_insensitive === true,
    fixedStrings: input.fixed_strings === true,
    multiline: input.multiline === true,
  });
  if (!compiled.ok || !compiled.value.inlineSafe || input.invert_match)
    throw new UsageError(
      '-r replaces matches this search cannot place: it needs a pattern without repetition (* + ? {}) or | (or -F), and no -v.',
    );
  const scan = compiled.value.spec.scan;
  const sticky = new RegExp(scan.source, `${scan.flags.replace('g', '')}y`);
  return { ...d, lines: d.lines.map((l) => (l.match && l.spans ? replaceLine(l, sticky, replacement) : l)) };
}

function replaceLine(l: GrepLine, sticky: RegExp, replacement: string): GrepLine {
  let text = '';
  let at = 0;
  const spans: [number, number][] = [];
  for (const [start, end] of l.spans ?? []) {
    sticky.lastIndex = start;
    const m = sticky.exec(l.text);
    const replaced = m ? expand(replacement, m) : replacement;
    text += l.text.slice(at, start);
    spans.push([text.length, text.length + replaced.length]);
    text += replaced;
    at = end;
  }
  return { ...l, text: text + l.text.slice(at), spans };
}

/** rg's replacement syntax: `$$`; `${group}`; `$group`, its name the longest run of [0-9A-Za-z_]. */
function expand(replacement: string, m: RegExpExecArray): string {
  return replacement.replace(/\$(\$|\{([^}]*)\}|([0-9A-Za-z_]+))/g, (all, _, braced?: string, bare?: string) => {
    if (all === '$$') return '$';
    const name = (braced ?? bare) as string;
    const value = /^[0-9]+$/.test(name) ? m[Number(name)] : m.groups?.[name];
    return value ?? '';
  });
}
