// The closing Markdown table of a run.
import type { Row } from './scenario.ts';

const figure = (value: number | null, digits = 0): string =>
  value === null ? '–' : value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const latency = (value: number | null): string => (value === null ? '–' : value < 10 ? value.toFixed(1) : value.toFixed(0));

export function markdownTable(rows: Row[]): string {
  const lines = [
    '| scenario | throughput | p50 / p99 ms | ceiling | ratio | peak RSS MiB | targets | notes |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const throughput = r.throughput === null ? '–' : `${figure(r.throughput)} ${r.unit}`;
    const ceiling = r.ceiling === null ? '–' : `${figure(r.ceiling)} (${r.ceilingOf ?? '?'})`;
    const targets = r.targets.map((t) => `${t.met ? '✅' : '❌'} ${t.text}`).join('<br>') || '–';
    lines.push(
      `| ${r.scenario} | ${throughput} | ${latency(r.p50Ms)} / ${latency(r.p99Ms)} | ${ceiling} | ${figure(r.ratio, 2)} | ${figure(r.peakRssMb)} | ${targets} | ${r.notes.join('; ') || '–'} |`,
    );
  }
  return lines.join('\n');
}
