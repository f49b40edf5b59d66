// Reports (issue #36): what a team lead asks — how conversations ended, how fast the agent and the team answered,
// what customers rated — over a date range, for a channel or a member. Every member reads them; each figure links
// to the conversations it counts.
import { t } from '../../i18n.ts';
import { ErrorLine } from '../../ui.tsx';
import { Breakdowns } from './breakdowns.tsx';
import { PerDay } from './day-chart.tsx';
import { Figures } from './figures.tsx';
import { Filters } from './filters.tsx';
import { useLists, useReportQuery, useSummary } from './hooks.ts';

export function ReportsPage() {
  const [query, setQuery] = useReportQuery();
  const { channels, members } = useLists();
  const { summary, error, loading } = useSummary(query);
  return (
    <section class="reports">
      <h1>{t('Reports')}</h1>
      <Filters query={query} channels={channels} members={members} onChange={setQuery} />
      <ErrorLine error={error} />
      <p class="muted" role="status">
        {loading ? `${t('Loading')}…` : ''}
      </p>
      {summary && (
        <>
          <Figures summary={summary} query={query} />
          <PerDay days={summary.perDay} query={query} />
          <Breakdowns summary={summary} query={query} />
        </>
      )}
    </section>
  );
}
