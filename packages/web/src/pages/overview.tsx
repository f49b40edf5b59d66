// Overview: conversations per day (a small SVG chart), answered vs fell back, corrections, tasks done.
import { useEffect, useState } from 'preact/hooks';
import type { Overview } from '@parley/contracts';
import { api, errorText } from '../api.ts';
import { t } from '../i18n.ts';
import { ErrorLine } from '../ui.tsx';

function Chart({ days }: { days: Overview['conversationsPerDay'] }) {
  const max = Math.max(1, ...days.map((d) => d.conversations));
  const width = 24;
  const height = 120;
  return (
    <svg class="chart" viewBox={`0 0 ${days.length * width} ${height + 16}`} role="img" aria-label={t('Conversations per day')}>
      {days.map((day, i) => {
        const h = Math.round((day.conversations / max) * height);
        return (
          <g key={day.date}>
            <title>{`${day.date}: ${day.conversations}`}</title>
            <rect x={i * width + 3} y={height - h} width={width - 6} height={Math.max(h, 1)} rx="2" />
            <text x={i * width + width / 2} y={height + 12} text-anchor="middle">
              {day.date.slice(8)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

export function OverviewPage() {
  const [overview, setOverview] = useState<Overview | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<Overview>('GET', '/overview/', { query: { days: 14 } }).then(setOverview, (e) => setError(errorText(e)));
  }, []);
  if (!overview) return <ErrorLine error={error} />;
  const replies = overview.agentReplies.answered + overview.agentReplies.fellBack;
  const share = replies === 0 ? 0 : Math.round((overview.agentReplies.answered / replies) * 100);
  return (
    <section>
      <h1>{t('Overview')}</h1>
      <div class="stats">
        <div class="card">
          <h2>
            {t('Conversations per day')} <small>({overview.days} {t('last days')})</small>
          </h2>
          <Chart days={overview.conversationsPerDay} />
        </div>
        <div class="card">
          <h2>{t('Agent replies')}</h2>
          <p class="big">{share}%</p>
          <p>
            {overview.agentReplies.answered} {t('answered')} · {overview.agentReplies.fellBack} {t('fell back')}
          </p>
        </div>
        <div class="card">
          <h2>{t('Corrections')}</h2>
          <p class="big">{overview.corrections}</p>
        </div>
        <div class="card">
          <h2>{t('Tasks done')}</h2>
          <p class="big">{overview.tasksDone}</p>
          <p>
            {t('of chats')}: {overview.chats}
          </p>
        </div>
      </div>
    </section>
  );
}
