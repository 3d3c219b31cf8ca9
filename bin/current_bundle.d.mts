/** The URL of the current bundle's entry under `root`, or undefined (none, stale, or MEWCODE_FROM_SOURCE=1). */
export function currentBundle(root: string): string | undefined;
