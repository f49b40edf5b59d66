// The summary's figures, each a link to the conversations it counts (DESIGN, Outcomes and reports).
import type { ComponentChildren } from 'preact';
import { t } from '../../i18n.ts';
import { plural } from '../../plural.ts';
import { QuietTimeNote } from './quiet-time-note.tsx';
import { Link } from '../../ui.tsx';
import { average, duration, percent } from './format.ts';
import { ledgerHref, type LedgerQuery, type ReportQuery } from './query.ts';
import type { ReportSummary } from './types.ts';

type Filter = Partial<Pick<LedgerQuery, 'outcome' | 'only'>>;

interface FigureProps {
  query: ReportQuery;
  /** The accessible name's part, in English: the link is named "<name>: <value>". */
  name: string;
  value: string;
  filter: Filter;
  small?: boolean;
  /** The visible label where the context says the rest (default: `name`, translated). */
  text?: string;
  /** The visible value with its counted noun ("1 agent answer"), where the label alone would count the wrong thing. */
  counted?: string;
}

/** One figure: its value and label, a link to the conversations it counts. */
function Figure({ query, name, value, filter, small, text, counted }: FigureProps) {
  return (
    <Link href={ledgerHref(query, filter)} label={`${name}: ${value}`}>
      <span class={small ? 'figure small' : 'figure'}>
        <strong>{counted ?? value}</strong> <span>{t(text ?? name)}</span>
      </span>
    </Link>
  );
}

/** A card of figures (the Reports page's; the channel page's replay summary uses it too). */
export function Group({ name, children }: { name: string; children: ComponentChildren }) {
  return (
    <section class="card figures" aria-label={name}>
      <h2>{t(name)}</h2>
      {children}
    </section>
  );
}

function Outcomes({ summary, query }: { summary: ReportSummary; query: ReportQuery }) {
  const { outcomes, handoffReasons } = summary;
  const f = (name: string, count: number, filter: Filter, small = false) => (
    <Figure query={query} name={name} value={String(count)} filter={filter} small={small} />
  );
  return (
    <Group name="Outcomes">
      <p class="big">{f('Conversations', summary.conversations, {})}</p>
      <ul class="figure-list">
        <li>
          {f('Resolved by the agent', outcomes.resolvedByAgent, { outcome: 'resolved_by_agent' })}
          <ul>
            <li>{f('Confirmed by the customer', outcomes.resolvedByAgentConfirmed, { outcome: 'resolved_by_agent', only: 'confirmed' }, true)}</li>
            <li>{f('Durable (no new conversation in 7 days)', outcomes.resolvedByAgentDurable, { outcome: 'resolved_by_agent', only: 'durable' }, true)}</li>
          </ul>
        </li>
        <li>{f('Resolved by the team', outcomes.resolvedByTeam, { outcome: 'resolved_by_team' })}</li>
        <li>
          {f('Handed off', outcomes.handedOff, { outcome: 'handed_off' })}
          <ul>
            <li>{f('The model handed off', handoffReasons.model, { only: 'model' }, true)}</li>
            <li>{f('The customer asked for a person', handoffReasons.customer_request, { only: 'customer_request' }, true)}</li>
            <li>{f('After fallbacks', handoffReasons.fallbacks, { only: 'fallbacks' }, true)}</li>
          </ul>
        </li>
        <li>{f('Unanswered', outcomes.unanswered, { outcome: 'unanswered' })}</li>
        <li>
          {f('Still open', outcomes.open, { outcome: 'open' })}
          <QuietTimeNote />
        </li>
      </ul>
      <p class="muted">
        {/* A count of the agent's answers (replies), not of conversations: its link lists the conversations holding them. */}
        <Figure
          query={query}
          name="Answered after a choice"
          value={String(summary.answeredAfterChoice)}
          counted={plural(summary.answeredAfterChoice, 'agent answer', 'agent answers')}
          filter={{ only: 'after_choice' }}
          small
          text="given after the customer picked a clarifying choice"
        />
      </p>
    </Group>
  );
}

function Rates({ summary, query }: { summary: ReportSummary; query: ReportQuery }) {
  return (
    <Group name="Rates">
      <p class="rate">
        <Figure query={query} name="Agent resolution rate" value={percent(summary.agentResolutionRate)} filter={{ outcome: 'resolved_by_agent' }} />
      </p>
      <p class="rate">
        <Figure query={query} name="Handoff rate" value={percent(summary.handoffRate)} filter={{ only: 'handed_off' }} />
      </p>
      <p class="muted small">{t('Of the conversations that ended.')}</p>
    </Group>
  );
}

function Times({ summary, query }: { summary: ReportSummary; query: ReportQuery }) {
  const { agent, team } = summary.firstResponseSeconds;
  const rows: [string, { p50: number | null; p90: number | null }, Filter][] = [
    ['First response of the agent', agent, { only: 'agent_response' }],
    ['First response of the team', team, { only: 'team_response' }],
    ['Resolution time', summary.resolutionSeconds, { only: 'ended' }],
  ];
  return (
    <Group name="Response times">
      <ul class="figure-list">
        {rows.map(([name, times, filter]) => (
          <li key={name}>
            <span class="figure-name">{t(name)}</span>
            <br />
            <Figure query={query} name={`${name}, median`} text="median" value={duration(times.p50)} filter={filter} small /> ·{' '}
            <Figure query={query} name={`${name}, 90th percentile`} text="90th percentile" value={duration(times.p90)} filter={filter} small />
          </li>
        ))}
      </ul>
    </Group>
  );
}

function Satisfaction({ summary, query }: { summary: ReportSummary; query: ReportQuery }) {
  const { agent, team } = summary.csat;
  const rows: [string, string, { count: number; average: number | null }, Filter][] = [
    ['Rated the agent', 'of 5, resolved by the agent', agent, { outcome: 'resolved_by_agent', only: 'rated' }],
    ['Rated the team', 'of 5, resolved by the team', team, { outcome: 'resolved_by_team', only: 'rated' }],
  ];
  return (
    <Group name="Customer satisfaction">
      <ul class="figure-list">
        {rows.map(([name, text, csat, filter]) => (
          <li key={name}>
            <Figure query={query} name={`${name}, average of 5`} text={text} value={average(csat.average)} filter={filter} />{' '}
            <span class="muted">({plural(csat.count, 'rating', 'ratings')})</span>
          </li>
        ))}
      </ul>
    </Group>
  );
}

export function Figures({ summary, query }: { summary: ReportSummary; query: ReportQuery }) {
  return (
    <div class="stats report-stats">
      <Outcomes summary={summary} query={query} />
      <Rates summary={summary} query={query} />
      <Times summary={summary} query={query} />
      <Satisfaction summary={summary} query={query} />
    </div>
  );
}
