// The closing Markdown table of a run.
import type { Row } from './scenario.ts';

const figure = (value: number | null, digits = 0): string =>
  value === null ? '–' : value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const latency = (value: number | null): string => (value === null ? '–' : value < 10 ? value.toFixed(1) : value.toFixed(0));

/** Statements per unit: whole numbers stay whole (1, 9), averages keep two decimals (1.17, 34.40). */
const statements = (value: number | null): string => (value === null ? '–' : Number.isInteger(value) ? String(value) : value.toFixed(2));

export function markdownTable(rows: Row[]): string {
  const lines = [
    '| scenario | throughput | p50 / p99 ms | ceiling (its CPU µs each) | ratio | server CPU µs each | SQL statements each | peak RSS MiB | targets | notes |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const throughput = r.throughput === null ? '–' : `${figure(r.throughput)} ${r.unit}`;
    const ceilingCpu = r.ceilingCpuUs === null ? '' : `, ${figure(r.ceilingCpuUs)} µs`;
    const ceiling = r.ceiling === null ? '–' : `${figure(r.ceiling)} (${r.ceilingOf ?? '?'}${ceilingCpu})`;
    const targets = r.targets.map((t) => `${t.met ? '✅' : '❌'} ${t.text}`).join('<br>') || '–';
    lines.push(
      `| ${r.scenario} | ${throughput} | ${latency(r.p50Ms)} / ${latency(r.p99Ms)} | ${ceiling} | ${figure(r.ratio, 2)} | ${figure(r.cpuUs)} | ${statements(r.statements)} | ${figure(r.peakRssMb)} | ${targets} | ${r.notes.join('; ') || '–'} |`,
    );
  }
  return lines.join('\n');
}
