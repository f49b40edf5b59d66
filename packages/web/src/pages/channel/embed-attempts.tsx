// Pages that tried to show the widget from an origin the channel does not allow (issue #34, item 1), each with
// `Allow <origin>`, which adds it to the allowed origins at once and says so. The list is read again every few
// seconds while the page is in view, so a refused site shows up without a reload (issue #42, item 11).
import { useEffect, useState } from 'preact/hooks';
import type { Channel, EmbedAttempt } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { plural } from '../../plural.ts';
import { ErrorLine, formatTime, StatusLine } from '../../ui.tsx';

/** How often the list is read again while the page is visible (a refused page load is rare; the read is one index scan). */
const REFRESH_MS = 3_000;

export function EmbedAttempts({ channel, onAllowed }: { channel: Channel; onAllowed: (channel: Channel) => void }) {
  const [attempts, setAttempts] = useState<EmbedAttempt[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [confirmed, setConfirmed] = useState<string | null>(null);
  const allowed = channel.widget?.allowedOrigins ?? [];
  useEffect(() => {
    let stopped = false;
    const load = () => {
      if (document.visibilityState !== 'visible') return;
      api<{ embedAttempts: EmbedAttempt[] }>('GET', `/channel/widget/${encodeURIComponent(channel.id)}/embed-attempts/`).then(
        (r) => {
          if (!stopped) setAttempts(r.embedAttempts);
        },
        (e) => {
          if (!stopped) setError(errorText(e));
        },
      );
    };
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [channel.id, allowed.join(' ')]);

  const allow = async (origin: string) => {
    setError(null);
    setConfirmed(null);
    try {
      const saved = await api<Channel>('PUT', `/channel/widget/${encodeURIComponent(channel.id)}/`, {
        body: { widget: { allowedOrigins: [...allowed, origin] } },
      });
      onAllowed(saved);
      setConfirmed(`${t('Allowed')}: ${origin} ${t('can show the widget now; reload that page to see it.')}`);
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  // The confirmation stays in one live region, also once the allowed origin has left the list.
  return (
    <div>
      {(attempts.length > 0 || error) && (
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
      )}
      <StatusLine text={confirmed} />
    </div>
  );
}
