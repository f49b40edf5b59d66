import { useState } from 'preact/hooks';
import type { Session } from '@parley/contracts';
import { api } from '../api.ts';
import { useAction } from '../use-action.ts';
import { t } from '../i18n.ts';
import { ErrorLine, LanguageSelect, Link } from '../ui.tsx';

export function LoginPage({ onSignedIn, notice }: { onSignedIn: (session: Session) => void; notice?: string | null }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      onSignedIn(await api<Session>('POST', '/auth/session', { body: { email, password } }));
    });
  };

  return (
    <main class="login">
      <form onSubmit={submit}>
        <h1>{t('Sign in to Parley')}</h1>
        {notice && (
          <p class="notice" role="alert">
            {notice}
          </p>
        )}
        <label class="field">
          <span>{t('Email')}</span>
          <input type="email" aria-label="Email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>{t('Password')}</span>
          <input
            type="password"
            aria-label="Password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <ErrorLine error={error} />
        <button type="submit" aria-label="Sign in" disabled={busy}>
          {t('Sign in')}
        </button>
        <Link href="/forgot-password">{t('Forgot password?')}</Link>
        <LanguageSelect />
      </form>
    </main>
  );
}
