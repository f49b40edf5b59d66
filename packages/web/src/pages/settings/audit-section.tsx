// Settings → Audit log (DESIGN, Security and privacy): the account's changes and sign-ins, newest first, filtered by
// actor (a member's id or `member`/`api_key`/`operator`), kind (`channel` or `channel.updated`) and UTC days; `Load
// more` follows the cursor; `Download CSV` saves what the filters select.
import { useEffect, useState } from 'preact/hooks';
import type { AuditEvent } from '@parley/contracts';
import { api, apiFile } from '../../api.ts';
import { t } from '../../i18n.ts';
import { ErrorLine, Field } from '../../ui.tsx';
import { useAction } from '../../use-action.ts';
import { SettingsSection } from './section.tsx';

interface AuditFilters {
  actor: string;
  kind: string;
  from: string;
  to: string;
}

const queryOf = (filters: AuditFilters) =>
  Object.fromEntries(Object.entries(filters).filter(([, value]) => value.trim() !== '').map(([key, value]) => [key, value.trim()]));

/** One change as a line: `field: before → after` for each changed field. */
function changesText(changes: AuditEvent['changes']): string {
  const show = (value: unknown) => (value === null ? '—' : typeof value === 'string' ? value : JSON.stringify(value));
  return Object.entries(changes)
    .map(([field, [before, after]]) => `${field}: ${show(before)} → ${show(after)}`)
    .join('; ');
}

async function downloadCsv(filters: AuditFilters): Promise<void> {
  const blob = await apiFile('/audit.csv', queryOf(filters));
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = 'audit-log.csv';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function AuditSection() {
  const [draft, setDraft] = useState<AuditFilters>({ actor: '', kind: '', from: '', to: '' });
  const [filters, setFilters] = useState<AuditFilters>(draft);
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const csv = useAction();
  const load = (after: string | null, shown: AuditEvent[]) =>
    run(async () => {
      const page = await api<{ events: AuditEvent[]; nextCursor: string | null }>('GET', '/audit', {
        query: { ...queryOf(filters), ...(after ? { cursor: after } : {}) },
      });
      setEvents([...shown, ...page.events]);
      setCursor(page.nextCursor);
    });
  useEffect(() => {
    void load(null, []);
  }, [filters]);
  const field = (name: keyof AuditFilters) => (e: { currentTarget: HTMLInputElement }) => setDraft({ ...draft, [name]: e.currentTarget.value });
  return (
    <SettingsSection
      name="Audit log"
      hint="Every change to the account's settings and people, and every sign-in: who, when, from which address, and what changed. Kept 365 days unless the server says otherwise."
    >
      <form
        aria-label="Audit log filters"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(draft);
        }}
      >
        <Field label={t('Actor')}>
          <input aria-label="Actor" placeholder="member, api_key, operator" maxLength={200} value={draft.actor} onInput={field('actor')} />
        </Field>
        <Field label={t('Kind')}>
          <input aria-label="Kind" placeholder="channel.updated" maxLength={100} value={draft.kind} onInput={field('kind')} />
        </Field>
        <Field label={t('From')}>
          <input type="date" aria-label="From" value={draft.from} onInput={field('from')} />
        </Field>
        <Field label={t('To')}>
          <input type="date" aria-label="To" value={draft.to} onInput={field('to')} />
        </Field>
        <button type="submit" aria-label="Show events" disabled={busy}>
          {t('Show')}
        </button>
        <button type="button" aria-label="Download CSV" disabled={csv.busy} onClick={() => void csv.run(() => downloadCsv(filters))}>
          {t('Download CSV')}
        </button>
      </form>
      <ErrorLine error={error ?? csv.error} />
      {events.length === 0 && !busy ? (
        <p class="muted">{t('No events.')}</p>
      ) : (
        <table class="list" aria-label="Audit events">
          <thead>
            <tr>
              <th>{t('When')}</th>
              <th>{t('Who')}</th>
              <th>{t('Address')}</th>
              <th>{t('Event')}</th>
              <th>{t('What')}</th>
              <th>{t('Changes')}</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={event.id}>
                <td>{new Date(event.at).toLocaleString()}</td>
                <td>{event.actor.kind === 'member' ? event.actor.name : `${event.actor.name} (${event.actor.kind})`}</td>
                <td>{event.address ?? '—'}</td>
                <td>
                  <code>{event.kind}</code>
                </td>
                <td>{event.target.name ?? event.target.id ?? event.target.type}</td>
                <td>{changesText(event.changes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cursor ? (
        <button type="button" aria-label="Load more" disabled={busy} onClick={() => void load(cursor, events)}>
          {t('Load more')}
        </button>
      ) : null}
    </SettingsSection>
  );
}
