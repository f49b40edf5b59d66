// Profile's `Two-factor sign-in` (issue #45, item 1): turned on with the secret set up in an authenticator app and
// confirmed by a code, which gives 10 one-time recovery codes (shown once); turned off with the password and a code.
// The secret's otpauth:// link is shown as a QR code to scan with a phone, as a link (which opens authenticator apps
// on the phone itself) and the secret as text (typed into the others).
import { useEffect, useState } from 'preact/hooks';
import type { Profile } from '@parley/contracts';
import { api } from '../api.ts';
import { t } from '../i18n.ts';
import { QrCode } from '../qr-code.tsx';
import { useAction } from '../use-action.ts';
import { ErrorLine, Field, StatusLine } from '../ui.tsx';

export function TwoFactorSection({ onEnabled }: { onEnabled?: () => void }) {
  const [on, setOn] = useState<boolean | null>(null);
  const [setup, setSetup] = useState<{ secret: string; otpauthUrl: string } | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const action = useAction();

  useEffect(() => {
    void action.run(async () => setOn((await api<Profile>('GET', '/me/')).twoFactor));
  }, []);

  const start = () =>
    void action.run(async () => {
      setStatus(null);
      setSetup(await api<{ secret: string; otpauthUrl: string }>('POST', '/me/2fa/setup'));
    });
  const enable = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const enabled = await api<{ recoveryCodes: string[] }>('POST', '/me/2fa/enable', { body: { code: code.trim() } });
      setRecoveryCodes(enabled.recoveryCodes);
      setSetup(null);
      setCode('');
      setOn(true);
      setStatus(t('Two-factor sign-in is on. Your other sessions were signed out.'));
    });
  };
  const disable = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await api('POST', '/me/2fa/disable', { body: { password, code: code.trim() } });
      setPassword('');
      setCode('');
      setRecoveryCodes(null);
      setOn(false);
      setStatus(t('Two-factor sign-in is off. Your other sessions were signed out.'));
    });
  };

  return (
    <section aria-label="Two-factor sign-in">
      <h2>{t('Two-factor sign-in')}</h2>
      {on === false && !setup && (
        <button type="button" aria-label="Turn on two-factor sign-in" disabled={action.busy} onClick={start}>
          {t('Turn on two-factor sign-in')}
        </button>
      )}
      {on === false && setup && (
        <form onSubmit={enable}>
          <p>{t('Scan this QR code with an authenticator app, or add the key to one, then type the code it shows.')}</p>
          <QrCode text={setup.otpauthUrl} label="QR code for your authenticator app" />
          <p>
            {t('Key')}: <code aria-label="Secret key">{setup.secret}</code>
          </p>
          <p>
            <a href={setup.otpauthUrl} aria-label="Open in an authenticator app">
              {t('Open in an authenticator app')}
            </a>
          </p>
          <Field label={t('Code')}>
            <input aria-label="Code" inputMode="numeric" autocomplete="one-time-code" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
          </Field>
          <button type="submit" aria-label="Confirm" disabled={action.busy}>
            {t('Confirm')}
          </button>
        </form>
      )}
      {recoveryCodes && (
        <div aria-label="Recovery codes">
          <p>{t('Recovery codes: each signs in once without the app. Keep them somewhere safe; they are shown only now.')}</p>
          <ul class="recovery-codes">
            {recoveryCodes.map((recovery) => (
              <li key={recovery}>
                <code>{recovery}</code>
              </li>
            ))}
          </ul>
          {onEnabled && (
            <button type="button" aria-label="Continue" onClick={onEnabled}>
              {t('Continue')}
            </button>
          )}
        </div>
      )}
      {on === true && !onEnabled && (
        <form onSubmit={disable}>
          <Field label={t('Password')}>
            <input type="password" aria-label="Password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          </Field>
          <Field label={t('Code')}>
            <input aria-label="Code" inputMode="numeric" autocomplete="one-time-code" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
          </Field>
          <button type="submit" aria-label="Turn off two-factor sign-in" disabled={action.busy}>
            {t('Turn off two-factor sign-in')}
          </button>
        </form>
      )}
      <ErrorLine error={action.error} />
      <StatusLine text={status} />
    </section>
  );
}
