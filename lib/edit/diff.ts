/** Unified diffs of a change, for the model: `--- a/x`, `+++ b/x`, hunks with line numbers, LF shown. */
import { structuredPatch } from 'diff';

export function unifiedDiff(shown: string, before: string, after: string, context = 3): string {
  const lf = (s: string) => s.replace(/\r\n/g, '\n');
  const patch = structuredPatch(`a/${shown}`, `b/${shown}`, lf(before), lf(after), undefined, undefined, { context });
  if (patch.hunks.length === 0) return '';
  const out = [`--- ${patch.oldFileName}`, `+++ ${patch.newFileName}`];
  for (const h of patch.hunks) out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines);
  return out.join('\n');
}
