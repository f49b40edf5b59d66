// Forgotten passwords (issue #33): the e-mail form behind the login page's `Forgot password?` (or, on a server that
// sends no e-mail, how to get a link from the operator instead), and the page of the one-time link
// (`/reset-password/<token>`), which signs the member in with the new password (a member with two-factor sign-in is
// sent to sign in with it and their code).
import { useState } from 'preact/hooks';
import type { Session, TwoFactorChallenge } from '@parley/contracts';
import { api, ApiError } from '../api.ts';
import { t } from '../i18n.ts';
import { Link, ErrorLine, StatusLine } from '../ui.tsx';
import { useAction } from '../use-action.ts';
import { useServerInfo } from '../server-info.ts';

/** No SMTP_URL: no e-mail would come, so the page says who makes a link instead (the operator's CLI). */
function AskTheOperator() {
  return (
    <main class="login">
      <section class="ask-operator" aria-labelledby="forgot-title">
        <h1 id="forgot-title">{t('Forgot password?')}</h1>
        <p role="note" aria-label="No e-mail on this server">
          {t('This server sends no e-mail, so no reset link can be mailed to you.')}{' '}
          {t('Ask the person who runs this Parley server for a one-time link to choose a new password; they make it with:')}
        </p>
        <pre class="command">npm run -s admin -- reset-password --email &lt;{t('your e-mail')}&gt;</pre>
        <p class="muted small">{t('The link works once, for one hour.')}</p>
        <Link href="/login">{t('Back to sign in')}</Link>
      </section>
    </main>
  );
}

export function ForgotPasswordPage() {
  const server = useServerInfo();
  if (server?.emailConfigured === false) return <AskTheOperator />;
  return <EmailLinkForm />;
}

function EmailLinkForm() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      await api('POST', '/auth/forgot-password', { body: { email } });
      setSent(t('If this e-mail belongs to a member, a link to choose a new password is on its way. It works once, for one hour.'));
    });
  };
  return (
    <main class="login">
      <form onSubmit={submit}>
        <h1>{t('Forgot password?')}</h1>
        <label class="field">
          <span>{t('Email')}</span>
          <input type="email" aria-label="Email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <ErrorLine error={error} />
        <StatusLine text={sent} />
        <button type="submit" aria-label="Send reset link" disabled={busy}>
          {t('Send reset link')}
        </button>
        <Link href="/login">{t('Back to sign in')}</Link>
      </form>
    </main>
  );
}

/** Who a bearer token signs in (the reset's answer), to start the web account's own session with the new password. */
async function emailOf(token: string): Promise<string> {
  const response = await fetch('/console/v1/auth/session', { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new ApiError(response.status, `HTTP ${response.status}`);
  return ((await response.json()) as Session).email;
}

export function ResetPasswordPage({ token, onSignedIn }: { token: string; onSignedIn: (session: Session) => void }) {
  const [password, setPassword] = useState('');
  const [secondFactor, setSecondFactor] = useState(false);
  const { busy, error, run } = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const reset = await api<{ token: string } | TwoFactorChallenge>('POST', '/auth/reset-password', { body: { token, password } });
      if ('twoFactorRequired' in reset) return setSecondFactor(true);
      const email = await emailOf(reset.token);
      onSignedIn(await api<Session>('POST', '/auth/session', { body: { email, password } }));
    });
  };
  if (secondFactor) {
    return (
      <main class="login">
        <h1>{t('Choose a new password')}</h1>
        <p role="status">{t('Your new password is set. Sign in with it and the code of your authenticator app.')}</p>
        <Link href="/login">{t('Sign in')}</Link>
      </main>
    );
  }
  return (
    <main class="login">
      <form onSubmit={submit}>
        <h1>{t('Choose a new password')}</h1>
        <label class="field">
          <span>{t('New password')}</span>
          <input
            type="password"
            aria-label="New password"
            autocomplete="new-password"
            required
            minLength={8}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <ErrorLine error={error} />
        <button type="submit" aria-label="Set password" disabled={busy}>
          {t('Set password')}
        </button>
        <Link href="/forgot-password">{t('Ask for a new link')}</Link>
      </form>
    </main>
  );
}
