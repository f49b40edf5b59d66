import { useEffect, useState } from 'preact/hooks';
import type { Session, SsoDiscovery, TwoFactorChallenge } from '@parley/contracts';
import { api } from '../api.ts';
import { useAction } from '../use-action.ts';
import { t } from '../i18n.ts';
import { ErrorLine, LanguageSelect, Link } from '../ui.tsx';

/** Why single sign-on ended on this page (`?sso=<reason>`, set by the server's callback). */
const SSO_FAILURES: Record<string, string> = {
  off: 'Single sign-on is not set up for this account.',
  unavailable: 'The sign-in provider could not be reached; try again later.',
  expired: 'The sign-in took too long or was started in another browser; try again.',
  invalid: 'The sign-in could not be verified; try again.',
  unverified: 'Your sign-in provider did not confirm your e-mail address.',
  not_member: 'This e-mail is not a member of this account; ask its owner for an invitation.',
  removed: 'Your access to this account was removed; ask its owner to invite you again.',
};

/**
 * Single sign-on's button (issue #45, item 2): the account's sign-in page (`/login/<slug>`) names its provider; on the
 * plain page, an e-mail of a domain an account allows finds it once typed.
 */
function useSsoButton(slug: string | undefined, email: string) {
  const [button, setButton] = useState<SsoDiscovery['sso']>(null);
  useEffect(() => {
    if (slug === undefined) return;
    void api<SsoDiscovery>('GET', '/auth/sso/discover', { query: { account: slug } }).then((found) => setButton(found.sso), () => setButton(null));
  }, [slug]);
  const lookUp = () => {
    if (slug !== undefined) return;
    const domain = email.trim().split('@')[1];
    if (!domain?.includes('.')) return setButton(null);
    void api<SsoDiscovery>('GET', '/auth/sso/discover', { query: { email: email.trim() } }).then((found) => setButton(found.sso), () => setButton(null));
  };
  return { button, lookUp };
}

export function LoginPage({ onSignedIn, notice, slug }: { onSignedIn: (session: Session) => void; notice?: string | null; slug?: string }) {
  const [email, setEmail] = useState('');
  const { button: ssoButton, lookUp } = useSsoButton(slug, email);
  const ssoFailure = SSO_FAILURES[new URLSearchParams(location.search).get('sso') ?? ''];
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  // Two-factor sign-in (issue #45): after the password, the code of the authenticator app (or a recovery code).
  const [challenge, setChallenge] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      const answer = await api<Session | TwoFactorChallenge>('POST', '/auth/session', { body: { email, password } });
      if ('twoFactorRequired' in answer) setChallenge(answer.challenge);
      else onSignedIn(answer);
    });
  };

  const submitCode = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      const body = recovery ? { challenge, recoveryCode: code.trim() } : { challenge, code: code.trim() };
      onSignedIn(await api<Session>('POST', '/auth/session/2fa', { body }));
    });
  };

  if (challenge !== null) {
    return (
      <main class="login">
        <form onSubmit={submitCode}>
          <h1>{t('Two-factor sign-in')}</h1>
          <p>{recovery ? t('Recovery code') : t('Type the code of your authenticator app.')}</p>
          <label class="field">
            <span>{recovery ? t('Recovery code') : t('Code')}</span>
            <input
              aria-label={recovery ? 'Recovery code' : 'Code'}
              inputMode={recovery ? 'text' : 'numeric'}
              autocomplete="one-time-code"
              required
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
          </label>
          <ErrorLine error={error} />
          <button type="submit" aria-label="Sign in" disabled={busy}>
            {t('Sign in')}
          </button>
          {!recovery && (
            <button
              type="button"
              class="link"
              aria-label="Use a recovery code"
              onClick={() => {
                setRecovery(true);
                setCode('');
              }}
            >
              {t('Use a recovery code')}
            </button>
          )}
          <button type="button" class="link" aria-label="Back to sign in" onClick={() => setChallenge(null)}>
            {t('Back to sign in')}
          </button>
        </form>
      </main>
    );
  }

  return (
    <main class="login">
      <form onSubmit={submit}>
        <h1>{t('Sign in to Parley')}</h1>
        {notice && (
          <p class="notice" role="alert">
            {notice}
          </p>
        )}
        {ssoFailure && (
          <p class="notice" role="alert">
            {t(ssoFailure)}
          </p>
        )}
        {ssoButton && (
          <a class="button sso" href={ssoButton.startUrl} aria-label={`Sign in with ${ssoButton.buttonName}`}>
            {t('Sign in with {name}').replace('{name}', ssoButton.buttonName)}
          </a>
        )}
        <label class="field">
          <span>{t('Email')}</span>
          <input
            type="email"
            aria-label="Email"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
            onBlur={lookUp}
          />
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
