// Profile's `Sessions` (issue #45): where the member is signed in, each with `Sign out`, and `Sign out everywhere
// else`; the session of this page is marked and cannot be ended here (signing out does that).
import { useEffect, useState } from 'preact/hooks';
import type { MemberSession } from '@parley/contracts';
import { api } from '../api.ts';
import { t } from '../i18n.ts';
import { useAction } from '../use-action.ts';
import { ErrorLine, formatTime } from '../ui.tsx';

export function SessionsSection() {
  const [sessions, setSessions] = useState<MemberSession[] | null>(null);
  const action = useAction();
  const load = () => action.run(async () => setSessions((await api<{ sessions: MemberSession[] }>('GET', '/me/sessions')).sessions));
  useEffect(() => {
    void load();
  }, []);

  const end = (path: string) =>
    void action.run(async () => {
      await api('DELETE', path);
      setSessions((await api<{ sessions: MemberSession[] }>('GET', '/me/sessions')).sessions);
    });

  const others = sessions?.filter((session) => !session.current) ?? [];
  return (
    <section aria-label="Sessions">
      <h2>{t('Sessions')}</h2>
      <ul class="sessions">
        {sessions?.map((session) => (
          <li key={session.id} aria-label={session.current ? 'This session' : 'Session'}>
            <span class="session-agent">{session.userAgent || t('Unknown browser')}</span>
            <span class="muted">
              {' '}
              · {session.address} · {t('signed in')} {formatTime(session.createdAt)} · {t('last seen')} {formatTime(session.lastSeenAt)}
            </span>
            {session.current ? (
              <strong> · {t('This session')}</strong>
            ) : (
              <button type="button" class="small" aria-label="Sign out" disabled={action.busy} onClick={() => end(`/me/sessions/${session.id}`)}>
                {t('Sign out')}
              </button>
            )}
          </li>
        ))}
      </ul>
      <ErrorLine error={action.error} />
      <button type="button" aria-label="Sign out everywhere else" disabled={action.busy || others.length === 0} onClick={() => end('/me/sessions')}>
        {t('Sign out everywhere else')}
      </button>
    </section>
  );
}
