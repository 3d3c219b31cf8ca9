/** A notebook as Jupyter writes it: json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n". */
export function jupyter(nb: unknown, indent = 1): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
          )
        : v;
  return `${JSON.stringify(sorted(nb), null, indent)}\n`;
}
