// Conversations per day: stacked bars (resolved by the agent, by the team, handed off, the rest) in plain SVG, one
// summarising name for screen readers and each day's numbers in its title and in the table under it, a link a day.
import { t } from '../../i18n.ts';
import { plural } from '../../plural.ts';
import { Link } from '../../ui.tsx';
import { ledgerHref, type ReportQuery } from './query.ts';
import type { ReportSummary } from './types.ts';

type Day = ReportSummary['perDay'][number];

const PARTS = [
  ['resolvedByAgent', 'Resolved by the agent', 'bar-agent'],
  ['resolvedByTeam', 'Resolved by the team', 'bar-team'],
  ['handedOff', 'Handed off', 'bar-handoff'],
] as const;

function rest(day: Day): number {
  return Math.max(0, day.conversations - day.resolvedByAgent - day.resolvedByTeam - day.handedOff);
}

/** "Conversations per day, 2026-11-01 to 2026-11-30: 120 in all, the most 14 on 2026-11-20." */
function chartLabel(days: Day[], query: ReportQuery): string {
  const total = days.reduce((sum, day) => sum + day.conversations, 0);
  const busiest = days.reduce<Day | null>((best, day) => (best === null || day.conversations > best.conversations ? day : best), null);
  const most = busiest && busiest.conversations > 0 ? `, the most ${busiest.conversations} on ${busiest.date}` : '';
  return `Conversations per day, ${query.from} to ${query.to}: ${total} in all${most}`;
}

function Chart({ days, query }: { days: Day[]; query: ReportQuery }) {
  const max = Math.max(1, ...days.map((day) => day.conversations));
  const width = 24;
  const height = 120;
  return (
    <svg class="chart report-chart" viewBox={`0 0 ${Math.max(1, days.length) * width} ${height + 16}`} role="img" aria-label={chartLabel(days, query)}>
      {days.map((day, i) => {
        let top = height;
        const bars = [...PARTS.map(([field, , kind]) => [day[field], kind] as const), [rest(day), 'bar-rest'] as const].map(([count, kind]) => {
          const h = (count / max) * height;
          top -= h;
          return count > 0 ? <rect key={kind} class={kind} x={i * width + 3} y={top} width={width - 6} height={h} /> : null;
        });
        const parts = PARTS.map(([field, name]) => `${t(name)} ${day[field]}`).join(', ');
        return (
          <g key={day.date}>
            <title>{`${day.date}: ${plural(day.conversations, 'conversation', 'conversations')} (${parts})`}</title>
            {bars}
            <text x={i * width + width / 2} y={height + 12} text-anchor="middle">
              {day.date.slice(8)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

function DayTable({ days, query }: { days: Day[]; query: ReportQuery }) {
  const shown = days.filter((day) => day.conversations > 0).reverse();
  if (shown.length === 0) return <p class="muted">{t('No conversations in these days.')}</p>;
  return (
    <table class="list" aria-label="Conversations per day">
      <thead>
        <tr>
          <th scope="col">{t('Day')}</th>
          <th scope="col">{t('Conversations')}</th>
          {PARTS.map(([, name]) => (
            <th key={name} scope="col">
              {t(name)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {shown.map((day) => {
          const on = { from: day.date, to: day.date };
          return (
            <tr key={day.date}>
              <th scope="row">{day.date}</th>
              <td>
                <Link href={ledgerHref(query, on)}>{day.conversations}</Link>
              </td>
              <td>
                <Link href={ledgerHref(query, { ...on, outcome: 'resolved_by_agent' })}>{day.resolvedByAgent}</Link>
              </td>
              <td>
                <Link href={ledgerHref(query, { ...on, outcome: 'resolved_by_team' })}>{day.resolvedByTeam}</Link>
              </td>
              <td>
                <Link href={ledgerHref(query, { ...on, outcome: 'handed_off' })}>{day.handedOff}</Link>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function PerDay({ days, query }: { days: Day[]; query: ReportQuery }) {
  return (
    <section class="card wide" aria-label="Per day">
      <h2>{t('Conversations per day')}</h2>
      <Chart days={days} query={query} />
      <p class="legend small">
        {PARTS.map(([, name, kind]) => (
          <span key={kind} class={`key ${kind}`}>
            {t(name)}
          </span>
        ))}
        <span class="key bar-rest">{t('Other')}</span>
      </p>
      <DayTable days={days} query={query} />
    </section>
  );
}
