/**
 * bash_output's filter: a ripgrep-syntax regex kept to the lines it matches. The regex runs here on the
 * main thread, where a pattern that backtracks without end would stop everything, so it runs inside a
 * V8 context with a time limit, which interrupts a runaway match.
 */
import vm from 'node:vm';
import { errValue, okValue, type Result } from '../core/result.ts';
import { compilePattern } from '../search/pattern.ts';

/** How long one filtering may take before it is stopped. */
const FILTER_MS = 2000;

const script = new vm.Script('lines.filter((l) => re.test(l))');

type LineFilter = (text: string) => Result<{ lines: string[]; of: number }, string>;

/** A filter for `source`, or why the regex does not compile. */
export function filterLines(source: string): Result<LineFilter, string> {
  const compiled = compilePattern(source, { ignoreCase: false, fixedStrings: false });
  if (!compiled.ok) return compiled;
  const scan = compiled.value.spec.scan;
  const re = new RegExp(scan.source, scan.flags.replace('g', '').replace('y', ''));
  return okValue((text: string) => {
    const all = text === '' ? [] : text.replace(/\n$/, '').split('\n');
    try {
      const lines = script.runInNewContext({ lines: all, re }, { timeout: FILTER_MS }) as string[];
      return okValue({ lines: [...lines], of: all.length });
    } catch {
      return errValue(
        `the filter ran past ${FILTER_MS} ms on ${all.length} lines and was stopped (a regex that backtracks): simplify it`,
      );
    }
  });
}
