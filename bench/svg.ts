/** A plain SVG bar chart of the benchmark's medians: one group per case, one bar per contender. */
export interface Bar {
  label: string;
  ms: number;
  ours: boolean;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function barChart(title: string, groups: { name: string; bars: Bar[] }[]): string {
  const rowH = 16;
  const labelW = 300;
  const chartW = 520;
  let y = 40;
  const parts: string[] = [];
  for (const g of groups) {
    parts.push(`<text x="10" y="${y}" font-weight="bold">${esc(g.name)}</text>`);
    y += 6;
    const max = Math.max(...g.bars.map((b) => b.ms), 1);
    for (const b of g.bars) {
      const w = Math.max(1, (b.ms / max) * chartW);
      parts.push(
        `<text x="10" y="${y + 12}">${esc(b.label)}</text>`,
        `<rect x="${labelW}" y="${y + 2}" width="${w.toFixed(1)}" height="${rowH - 4}" fill="${b.ours ? '#d9480f' : '#4c6ef5'}"/>`,
        `<text x="${labelW + w + 4}" y="${y + 12}">${b.ms.toFixed(1)} ms</text>`,
      );
      y += rowH;
    }
    y += 18;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${labelW + chartW + 90}" height="${y}" font-family="sans-serif" font-size="11">
<text x="10" y="20" font-size="14" font-weight="bold">${esc(title)}</text>
${parts.join('\n')}
</svg>
`;
}
