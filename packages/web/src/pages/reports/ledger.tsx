// The conversations behind a figure (the ledger): the report's filters and the figure's, page by page with
// `Load more`; each conversation links to its chat in the Inbox.
import { t } from '../../i18n.ts';
import { ErrorLine, formatTime, Link } from '../../ui.tsx';
import { duration, NONE } from './format.ts';
import { useLedger, useLedgerQuery, useLists } from './hooks.ts';
import { searchOf, type LedgerQuery } from './query.ts';
import type { LedgerConversation, OpenState, Outcome } from './types.ts';

export const OUTCOME_NAMES: Record<Outcome, string> = {
  resolved_by_agent: 'Resolved by the agent',
  resolved_by_team: 'Resolved by the team',
  handed_off: 'Handed off',
  unanswered: 'Unanswered',
  open: 'Still open',
};

/** What has happened so far in an open conversation. */
export const STATE_NAMES: Record<OpenState, string> = {
  answered_by_agent: 'answered by the agent',
  waiting_for_team: 'waiting for the team',
  waiting_for_customer: 'waiting for the customer',
  new: 'nothing answered yet',
};

/** An open conversation: "Still open: waiting for the team", and when quiet time would end it. */
function OpenOutcome({ state, endsAt }: { state: OpenState | null; endsAt: string | null }) {
  const ending = endsAt === null ? null : Date.parse(endsAt) <= Date.now() ? t('ending now') : `${t('ends')} ${formatTime(endsAt)}`;
  return (
    <>
      {t(OUTCOME_NAMES.open)}
      {state && `: ${t(STATE_NAMES[state])}`}
      {ending && (
        <span class="muted small" title={t('when quiet time ends it, unless the customer writes again')}>
          <br />
          {ending} {t('unless the customer writes')}
        </span>
      )}
    </>
  );
}

const ONLY_NAMES: Record<Exclude<LedgerQuery['only'], ''>, string> = {
  confirmed: 'confirmed by the customer',
  durable: 'durable',
  handed_off: 'handed off by the agent',
  model: 'the model handed off',
  customer_request: 'the customer asked for a person',
  fallbacks: 'handed off after fallbacks',
  rated: 'rated by the customer',
  agent_response: 'the agent answered',
  team_response: 'a member replied',
  ended: 'ended',
  after_choice: 'answered after a choice',
  with_action: 'resolved with an action',
};

/** "Resolved by the agent · confirmed by the customer · 2026-11-01 – 2026-11-30 · Shop · Ann". */
function describe(query: LedgerQuery, channelName: string | undefined, memberName: string | undefined): string {
  const parts = [query.outcome ? t(OUTCOME_NAMES[query.outcome]) : t('All conversations')];
  if (query.only) parts.push(t(ONLY_NAMES[query.only]));
  parts.push(query.from === query.to ? query.from : `${query.from} – ${query.to}`);
  if (channelName) parts.push(channelName);
  if (memberName) parts.push(memberName);
  return parts.join(' · ');
}

function Row({ conversation, channelName }: { conversation: LedgerConversation; channelName: string }) {
  const c = conversation;
  const badges = [c.confirmed ? t('confirmed') : '', c.durable ? t('durable') : '', c.handoffReason ? `${t('handoff')}: ${c.handoffReason}` : '']
    .filter(Boolean)
    .join(', ');
  return (
    <tr>
      <th scope="row">
        <Link href={`/inbox/${encodeURIComponent(c.chatId)}`}>{c.customerName || t('Customer')}</Link>
      </th>
      <td>{channelName}</td>
      <td>{formatTime(c.startedAt)}</td>
      <td>
        {c.outcome === 'open' ? <OpenOutcome state={c.state} endsAt={c.endsAt} /> : t(OUTCOME_NAMES[c.outcome])}
        {badges && <span class="muted small"> ({badges})</span>}
      </td>
      <td>{duration(c.firstAgentResponseSeconds)}</td>
      <td>{duration(c.firstTeamResponseSeconds)}</td>
      <td>{c.assignee?.name ?? NONE}</td>
      <td>{c.csat ?? NONE}</td>
      <td>{c.messages}</td>
    </tr>
  );
}

export function LedgerPage() {
  const query = useLedgerQuery();
  const { channels, members } = useLists();
  const ledger = useLedger(query);
  const channelName = (id: string) => channels.find((channel) => channel.id === id)?.name ?? '';
  const member = members.find((m) => m.id === query.memberId);
  const back = searchOf({ from: query.from, to: query.to, channelId: query.channelId, memberId: query.memberId });
  return (
    <section class="ledger">
      <p>
        <Link href={`/reports${back}`}>← {t('Reports')}</Link>
      </p>
      <h1>{t('Conversations')}</h1>
      <p class="muted">{describe(query, query.channelId ? channelName(query.channelId) : undefined, member ? member.name || member.email : undefined)}</p>
      <ErrorLine error={ledger.error} />
      <table class="list" aria-label="Conversations">
        <thead>
          <tr>
            <th scope="col">{t('Customer')}</th>
            <th scope="col">{t('Channel')}</th>
            <th scope="col">{t('Started')}</th>
            <th scope="col">{t('Outcome')}</th>
            <th scope="col">{t('Agent first response')}</th>
            <th scope="col">{t('Team first response')}</th>
            <th scope="col">{t('Assigned to')}</th>
            <th scope="col">{t('Rating')}</th>
            <th scope="col">{t('Messages')}</th>
          </tr>
        </thead>
        <tbody>
          {ledger.rows.map((conversation) => (
            <Row key={conversation.id} conversation={conversation} channelName={channelName(conversation.channelId)} />
          ))}
        </tbody>
      </table>
      {ledger.loaded && ledger.rows.length === 0 && !ledger.more && <p class="muted">{t('No conversations.')}</p>}
      {!ledger.loaded && <p class="muted">{t('Loading')}…</p>}
      {ledger.more && (
        <button type="button" aria-label="Load more" disabled={ledger.busy} onClick={ledger.loadMore}>
          {t('Load more')}
        </button>
      )}
    </section>
  );
}
