// Pages that tried to show the widget from an origin the channel does not allow (issue #34, item 1), each with
// `Allow <origin>`, which adds it to the allowed origins at once.
import { useEffect, useState } from 'preact/hooks';
import type { Channel, EmbedAttempt } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { plural } from '../../plural.ts';
import { ErrorLine, formatTime } from '../../ui.tsx';

export function EmbedAttempts({ channel, onAllowed }: { channel: Channel; onAllowed: (channel: Channel) => void }) {
  const [attempts, setAttempts] = useState<EmbedAttempt[]>([]);
  const [error, setError] = useState<string | null>(null);
  const allowed = channel.widget?.allowedOrigins ?? [];
  useEffect(() => {
    api<{ embedAttempts: EmbedAttempt[] }>('GET', `/channel/widget/${encodeURIComponent(channel.id)}/embed-attempts/`).then(
      (r) => setAttempts(r.embedAttempts),
      (e) => setError(errorText(e)),
    );
  }, [channel.id, allowed.join(' ')]);

  const allow = async (origin: string) => {
    setError(null);
    try {
      const saved = await api<Channel>('PUT', `/channel/widget/${encodeURIComponent(channel.id)}/`, {
        body: { widget: { allowedOrigins: [...allowed, origin] } },
      });
      onAllowed(saved);
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  if (attempts.length === 0 && !error) return null;
  return (
    <div aria-label="Refused sites" role="group">
      <h3>{t('Sites that tried to show the widget')}</h3>
      <ul class="plain">
        {attempts.map((attempt) => (
          <li key={attempt.origin} class="row">
            <code>{attempt.origin}</code>
            <span class="muted small">
              {plural(attempt.attempts, 'attempt', 'attempts')}, {t('last')} {formatTime(attempt.lastAt)}
            </span>
            <button type="button" class="small" aria-label={`Allow ${attempt.origin}`} onClick={() => void allow(attempt.origin)}>
              {t('Allow')} {attempt.origin}
            </button>
          </li>
        ))}
      </ul>
      <ErrorLine error={error} />
    </div>
  );
}
