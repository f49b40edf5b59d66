// The report per channel and per member (a member's conversations are those it replied in), each count a link.
import { t } from '../../i18n.ts';
import { Link } from '../../ui.tsx';
import { average, duration, percent } from './format.ts';
import { ledgerHref, type ReportQuery } from './query.ts';
import type { ReportSummary } from './types.ts';

function PerChannel({ rows, query }: { rows: ReportSummary['perChannel']; query: ReportQuery }) {
  return (
    <table class="list" aria-label="Per channel">
      <thead>
        <tr>
          <th scope="col">{t('Channel')}</th>
          <th scope="col">{t('Conversations')}</th>
          <th scope="col">{t('Resolved by the agent')}</th>
          <th scope="col">{t('Share')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.channelId}>
            <th scope="row">{row.name}</th>
            <td>
              <Link href={ledgerHref(query, { channelId: row.channelId })}>{row.conversations}</Link>
            </td>
            <td>
              <Link href={ledgerHref(query, { channelId: row.channelId, outcome: 'resolved_by_agent' })}>{row.resolvedByAgent}</Link>
            </td>
            <td>{percent(row.conversations === 0 ? null : row.resolvedByAgent / row.conversations)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function PerMember({ rows, query }: { rows: ReportSummary['perMember']; query: ReportQuery }) {
  return (
    <table class="list" aria-label="Per member">
      <thead>
        <tr>
          <th scope="col">{t('Member')}</th>
          <th scope="col">{t('Conversations')}</th>
          <th scope="col">{t('First response, median')}</th>
          <th scope="col">{t('Satisfaction')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.memberId}>
            <th scope="row">{row.name}</th>
            <td>
              <Link href={ledgerHref(query, { memberId: row.memberId })}>{row.conversations}</Link>
            </td>
            <td>
              <Link href={ledgerHref(query, { memberId: row.memberId, only: 'team_response' })}>{duration(row.firstResponseP50)}</Link>
            </td>
            <td>
              <Link href={ledgerHref(query, { memberId: row.memberId, only: 'rated' })}>{average(row.csatAverage)}</Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Breakdowns({ summary, query }: { summary: ReportSummary; query: ReportQuery }) {
  return (
    <div class="stats report-breakdowns">
      <section class="card" aria-label="Channels">
        <h2>{t('Per channel')}</h2>
        {summary.perChannel.length ? <PerChannel rows={summary.perChannel} query={query} /> : <p class="muted">{t('No conversations in these days.')}</p>}
      </section>
      <section class="card" aria-label="Members">
        <h2>{t('Per member')}</h2>
        {summary.perMember.length ? <PerMember rows={summary.perMember} query={query} /> : <p class="muted">{t('No member replied in these days.')}</p>}
      </section>
    </div>
  );
}
