// Deliveries: a channel's webhook delivery log (status, attempts, response codes) with redelivery, the agent
// failures list, and the replies a messenger refused for good.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { AgentFailure, Channel, Delivery, MessengerSendFailure } from '@parley/contracts';
import { api, errorText } from '../api.ts';
import { t } from '../i18n.ts';
import { ErrorLine, formatTime, Link } from '../ui.tsx';

export function DeliveriesPage() {
  const [channels, setChannels] = useState<Channel[]>([]);
  const [channelId, setChannelId] = useState('');
  const [deliveries, setDeliveries] = useState<Delivery[]>([]);
  const [failures, setFailures] = useState<AgentFailure[]>([]);
  const [sendFailures, setSendFailures] = useState<MessengerSendFailure[]>([]);
  const [error, setError] = useState<string | null>(null);
  const channel = channels.find((c) => c.id === channelId);

  useEffect(() => {
    api<{ channels: Channel[] }>('GET', '/channels/all/').then((r) => {
      setChannels(r.channels);
      setChannelId((current) => current || r.channels[0]?.id || '');
    }, (e) => setError(errorText(e)));
    api<{ failures: AgentFailure[] }>('GET', '/agent/failures/').then((r) => setFailures(r.failures), () => undefined);
    api<{ failures: MessengerSendFailure[] }>('GET', '/channels/failures/').then((r) => setSendFailures(r.failures), () => undefined);
  }, []);

  const load = useCallback(async () => {
    if (!channel) return;
    try {
      const result = await api<{ deliveries: Delivery[] }>('GET', `/channel/${channel.type}/${encodeURIComponent(channel.id)}/deliveries`, { query: { limit: 100 } });
      setDeliveries(result.deliveries);
      setError(null);
    } catch (failure) {
      setError(errorText(failure));
    }
  }, [channel?.id]);
  useEffect(() => void load(), [load]);

  const redeliver = async (id: string) => {
    try {
      await api('POST', `/deliveries/${id}/redeliver`);
      await load();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return (
    <section>
      <h1>{t('Webhook deliveries')}</h1>
      <div class="row">
        <select aria-label="Channel" value={channelId} onChange={(e) => setChannelId(e.currentTarget.value)}>
          {channels.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
        <button type="button" aria-label="Refresh" onClick={() => void load()}>
          ↻
        </button>
      </div>
      <ErrorLine error={error} />
      {deliveries.length === 0 ? (
        <p class="muted">{t('No deliveries')}</p>
      ) : (
        <table class="list" aria-label="Deliveries">
          <thead>
            <tr>
              <th>{t('Event')}</th>
              <th>{t('Status')}</th>
              <th>{t('Attempts')}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr key={delivery.id}>
                <td>
                  {delivery.event}
                  <br />
                  <span class="muted small">{formatTime(delivery.createdAt)}</span>
                </td>
                <td class={`status-${delivery.status}`}>{delivery.status}</td>
                <td>
                  {delivery.attempts.map((attempt) => (
                    <div key={attempt.number} class="small">
                      #{attempt.number} {attempt.statusCode ?? attempt.error ?? '—'} · {attempt.latencyMs} ms
                    </div>
                  ))}
                </td>
                <td>
                  {delivery.status !== 'pending' && (
                    <button type="button" class="small" aria-label={`Redeliver ${delivery.id}`} onClick={() => redeliver(delivery.id)}>
                      {t('Redeliver')}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>{t('Agent failures')}</h2>
      {failures.length === 0 ? (
        <p class="muted">{t('No failures')}</p>
      ) : (
        <ul aria-label="Agent failures">
          {failures.map((failure) => (
            <li key={failure.id}>
              {formatTime(failure.createdAt)} · <Link href={`/inbox/${failure.chatId}`}>{t('Open')}</Link> · <span>{failure.error}</span>
            </li>
          ))}
        </ul>
      )}
      <h2>{t('Messenger send failures')}</h2>
      {sendFailures.length === 0 ? (
        <p class="muted">{t('No failures')}</p>
      ) : (
        <ul aria-label="Messenger send failures">
          {sendFailures.map((failure) => (
            <li key={failure.id}>
              {formatTime(failure.failedAt)} · {failure.channelType} · <Link href={`/inbox/${failure.chatId}`}>{t('Open')}</Link> ·{' '}
              <span>{failure.error}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
