// An action's recent runs, newest first, paged by `Load more`: when, in which chat (a test call or a replay has none),
// the values (secrets masked by the server), how it ended, the shop's status, the time it took and the error.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ActionRun } from '@parley/contracts';
import { api } from '../../api.ts';
import { t } from '../../i18n.ts';
import { useLoadOrder } from '../../load-order.ts';
import { useAction } from '../../use-action.ts';
import { ErrorLine, formatTime, Link } from '../../ui.tsx';
import { OUTCOME_LABELS } from './use-actions.ts';

const PAGE = 20;

function valuesText(parameters: ActionRun['parameters']): string {
  return Object.entries(parameters)
    .map(([name, value]) => `${name}=${String(value)}`)
    .join(', ');
}

/** `version` changes when a test call ran: the list is read again from its first page. */
export function RecentRuns({ actionId, version }: { actionId: string; version: number }) {
  const [runs, setRuns] = useState<ActionRun[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const order = useLoadOrder();

  const load = useCallback(
    async (after: string | null) => {
      const current = order.begin();
      await run(async () => {
        const page = await api<{ runs: ActionRun[]; nextCursor: string | null }>('GET', `/actions/${actionId}/runs`, { query: { limit: PAGE, cursor: after ?? undefined } });
        if (!order.isNewest(current)) return;
        setRuns((shown) => (after === null ? page.runs : [...shown, ...page.runs]));
        setCursor(page.nextCursor);
      });
    },
    [actionId],
  );
  useEffect(() => void load(null), [load, version]);

  return (
    <section class="card" aria-label="Recent runs">
      <div class="row spread">
        <h2>{t('Recent runs')}</h2>
        <button type="button" class="small" aria-label="Refresh runs" onClick={() => void load(null)}>
          {t('Refresh')}
        </button>
      </div>
      <ErrorLine error={error} />
      {runs.length === 0 ? (
        <p class="muted">{t('No runs yet.')}</p>
      ) : (
        <table class="list" aria-label="Runs">
          <thead>
            <tr>
              <th>{t('Time')}</th>
              <th>{t('Chat')}</th>
              <th>{t('Parameters')}</th>
              <th>{t('Outcome')}</th>
              <th>{t('Status')}</th>
              <th>ms</th>
              <th>{t('Error')}</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((item) => (
              <tr key={item.id}>
                <td>{formatTime(item.at)}</td>
                <td>{item.chatId ? <Link href={`/inbox/${item.chatId}`}>{t('Open chat')}</Link> : <span class="muted">{t('test or replay')}</span>}</td>
                <td>
                  <code>{valuesText(item.parameters)}</code>
                </td>
                <td class={item.outcome === 'ok' ? 'status-delivered' : 'status-failed'}>{t(OUTCOME_LABELS[item.outcome])}</td>
                <td>{item.status ?? '—'}</td>
                <td>{item.ms ?? '—'}</td>
                <td>{item.error ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cursor !== null && (
        <button type="button" aria-label="Load more" disabled={busy} onClick={() => void load(cursor)}>
          {t('Load more')}
        </button>
      )}
    </section>
  );
}
