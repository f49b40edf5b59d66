// Overview: new chats per day (a small SVG chart), the agent's replies answered directly / after a clarifying choice /
// clarified / fell back / handed off (in all and per day), corrections, tasks done. The reports count conversations;
// here a reply is counted as a reply and a chat as a chat.
import { useEffect, useState } from 'preact/hooks';
import type { Overview } from '@parley/contracts';
import { api, errorText } from '../api.ts';
import { t } from '../i18n.ts';
import { ErrorLine } from '../ui.tsx';
import { plural } from '../plural.ts';
import { FirstSteps } from './first-steps.tsx';

/** The agent's replies per day, newest first, days without any left out. */
function RepliesPerDay({ days }: { days: Overview['agentRepliesPerDay'] }) {
  const shown = days.filter((day) => day.answered + day.answeredAfterChoice + day.clarified + day.fellBack + day.handedOff > 0).reverse();
  if (shown.length === 0) return null;
  return (
    <table class="list" aria-label="Agent replies per day">
      <thead>
        <tr>
          <th scope="col">{t('Day')}</th>
          <th scope="col">{t('Answered')}</th>
          <th scope="col">{t('After a choice')}</th>
          <th scope="col">{t('Clarifying questions')}</th>
          <th scope="col">{t('Fell back')}</th>
          <th scope="col">{t('Handed off')}</th>
        </tr>
      </thead>
      <tbody>
        {shown.map((day) => (
          <tr key={day.date}>
            <th scope="row">{day.date}</th>
            <td>{day.answered}</td>
            <td>{day.answeredAfterChoice}</td>
            <td>{day.clarified}</td>
            <td>{day.fellBack}</td>
            <td>{day.handedOff}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Chart({ days }: { days: Overview['conversationsPerDay'] }) {
  const max = Math.max(1, ...days.map((d) => d.conversations));
  const width = 24;
  const height = 120;
  return (
    <svg class="chart" viewBox={`0 0 ${days.length * width} ${height + 16}`} role="img" aria-label="New chats per day">
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
  const { answered, answeredAfterChoice, clarified, fellBack, handedOff } = overview.agentReplies;
  const replies = answered + answeredAfterChoice + fellBack + handedOff;
  // A clarifying question is counted beside the answers, not in the share: the answer to the customer's pick is.
  const share = replies === 0 ? 0 : Math.round(((answered + answeredAfterChoice) / replies) * 100);
  return (
    <section>
      <h1>{t('Overview')}</h1>
      <FirstSteps />
      <div class="stats">
        <div class="card">
          <h2>
            {t('New chats per day')} <small>({overview.days} {t('last days')})</small>
          </h2>
          <Chart days={overview.conversationsPerDay} />
        </div>
        <div class="card">
          <h2>{t('Agent replies')}</h2>
          <p class="big">{share}%</p>
          <p class="muted small">{t('answered, of the replies that answered, fell back or handed off')}</p>
          <p>
            {[
              plural(answered, 'direct answer', 'direct answers'),
              plural(answeredAfterChoice, 'answer after a choice', 'answers after a choice'),
              plural(clarified, 'clarifying question', 'clarifying questions'),
              plural(fellBack, 'fallback', 'fallbacks'),
              plural(handedOff, 'handoff', 'handoffs'),
            ].join(' · ')}
          </p>
        </div>
        <div class="card wide">
          <h2>{t('Agent replies per day')}</h2>
          <RepliesPerDay days={overview.agentRepliesPerDay} />
        </div>
        <div class="card">
          <h2>{t('Corrections')}</h2>
          <p class="big">{overview.corrections}</p>
        </div>
        <div class="card">
          <h2>{t('Tasks done')}</h2>
          <p class="big">{overview.tasksDone}</p>
          <p>
            {t('of')} {plural(overview.chats, 'chat', 'chats')}
          </p>
        </div>
      </div>
    </section>
  );
}
