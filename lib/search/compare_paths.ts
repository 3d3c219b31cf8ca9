/** Orders paths the way a name-ordered walk visits them: component by component. */
export function comparePaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x === 47) return -1; // '/' ends a component: the shorter name sorts first
    if (y === 47) return 1;
    return x - y;
  }
  return a.length - b.length;
}
