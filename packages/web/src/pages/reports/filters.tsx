// The report's filters: a date range (UTC days), a channel and a member; and `Download CSV` of what they select.
import { useContext } from 'preact/hooks';
import type { Channel, Member } from '@parley/contracts';
import { t } from '../../i18n.ts';
import { SessionContext } from '../../role.tsx';
import { ErrorLine, Field } from '../../ui.tsx';
import { useAction } from '../../use-action.ts';
import { downloadCsv } from './hooks.ts';
import type { ReportQuery } from './query.ts';

interface FiltersProps {
  query: ReportQuery;
  channels: Channel[];
  members: Member[];
  onChange: (changes: Partial<ReportQuery>) => void;
}

export function Filters({ query, channels, members, onChange }: FiltersProps) {
  const session = useContext(SessionContext);
  const csv = useAction();
  const day = (name: 'from' | 'to') => (event: Event) => {
    const value = (event.currentTarget as HTMLInputElement).value;
    if (!value) return;
    // The range stays a range: a first day after the last moves the last, and the other way round.
    if (name === 'from') onChange(value > query.to ? { from: value, to: value } : { from: value });
    else onChange(value < query.from ? { from: value, to: value } : { to: value });
  };
  return (
    <form class="card row wrap report-filters" aria-label="Report filters" onSubmit={(event) => event.preventDefault()}>
      <Field label={t('From')}>
        <input type="date" aria-label="From" value={query.from} max={query.to} required onChange={day('from')} />
      </Field>
      <Field label={t('To')}>
        <input type="date" aria-label="To" value={query.to} min={query.from} required onChange={day('to')} />
      </Field>
      <Field label={t('Channel')}>
        <select aria-label="Channel" value={query.channelId} onChange={(e) => onChange({ channelId: e.currentTarget.value })}>
          <option value="">{t('All channels')}</option>
          {channels.map((channel) => (
            <option key={channel.id} value={channel.id}>
              {channel.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label={t('Member')}>
        <select aria-label="Member" value={query.memberId} onChange={(e) => onChange({ memberId: e.currentTarget.value })}>
          <option value="">{t('All members')}</option>
          {members.map((member) => (
            <option key={member.id} value={member.id}>
              {member.name || member.email}
              {member.id === session?.memberId ? ` (${t('you')})` : ''}
            </option>
          ))}
        </select>
      </Field>
      <button type="button" aria-label="Download CSV" disabled={csv.busy} onClick={() => void csv.run(() => downloadCsv(query))}>
        {t('Download CSV')}
      </button>
      <ErrorLine error={csv.error} />
    </form>
  );
}
