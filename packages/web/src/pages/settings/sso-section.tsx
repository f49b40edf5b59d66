// Settings → Security → Single sign-on (issue #45, item 2): the owner names the account's OpenID provider (issuer,
// client id, a write-only secret), the button, who may join and whether passwords still sign in; the sign-in page
// and the redirect URI to register at the provider are shown to copy. Only the owner sees and changes it.
import { useContext, useEffect, useState } from 'preact/hooks';
import type { SsoSettings } from '@parley/contracts';
import { api } from '../../api.ts';
import { t } from '../../i18n.ts';
import { SessionContext } from '../../role.tsx';
import { CopyButton, ErrorLine, Field, StatusLine } from '../../ui.tsx';
import { useAction } from '../../use-action.ts';

export function SsoForm() {
  const session = useContext(SessionContext);
  if (session?.role !== 'owner') return <p class="muted small">{t('Single sign-on is set up by the owner.')}</p>;
  return <OwnerSsoForm />;
}

function OwnerSsoForm() {
  const [settings, setSettings] = useState<SsoSettings | null>(null);
  const [issuer, setIssuer] = useState('');
  const [clientId, setClientId] = useState('');
  const [secret, setSecret] = useState('');
  const [buttonName, setButtonName] = useState('SSO');
  const [domains, setDomains] = useState('');
  const [defaultRole, setDefaultRole] = useState<'admin' | 'agent'>('agent');
  const [passwordLogin, setPasswordLogin] = useState(true);
  const [saved, setSaved] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const show = (next: SsoSettings) => {
    setSettings(next);
    setIssuer(next.issuer ?? '');
    setClientId(next.clientId ?? '');
    setSecret('');
    setButtonName(next.buttonName);
    setDomains(next.allowedDomains.join(', '));
    setDefaultRole(next.defaultRole);
    setPasswordLogin(next.passwordLogin);
  };
  useEffect(() => {
    void run(async () => show(await api<SsoSettings>('GET', '/account/sso/')));
  }, []);
  const save = (event: Event) => {
    event.preventDefault();
    setSaved(null);
    void run(async () => {
      const body = {
        issuer: issuer.trim() || null,
        clientId: clientId.trim() || null,
        ...(secret ? { clientSecret: secret } : {}),
        buttonName: buttonName.trim() || 'SSO',
        allowedDomains: domains
          .split(/[\s,]+/)
          .map((domain) => domain.trim())
          .filter(Boolean),
        defaultRole,
        passwordLogin,
      };
      const updated = await api<SsoSettings>('PUT', '/account/sso/', { body });
      show(updated);
      setSaved(updated.issuer ? t('Saved: members can sign in with single sign-on.') : t('Saved: single sign-on is off.'));
    });
  };
  return (
    <form aria-label="Single sign-on" onSubmit={save}>
      <h3>{t('Single sign-on')}</h3>
      <p class="muted small">{t('Members sign in with your OpenID Connect provider. Register the redirect URI below at the provider.')}</p>
      {settings && (
        <>
          <Field label={t('Sign-in page')}>
            <span>
              <code>{settings.loginUrl}</code> <CopyButton text={settings.loginUrl} label="Copy sign-in page" />
            </span>
          </Field>
          <Field label={t('Redirect URI')}>
            <span>
              <code>{settings.redirectUri}</code> <CopyButton text={settings.redirectUri} label="Copy redirect URI" />
            </span>
          </Field>
        </>
      )}
      <Field label={t('Issuer URL')}>
        <input type="url" aria-label="Issuer URL" placeholder="https://login.example.com" maxLength={500} value={issuer} onInput={(e) => setIssuer(e.currentTarget.value)} />
      </Field>
      <Field label={t('Client ID')}>
        <input aria-label="Client ID" maxLength={500} value={clientId} onInput={(e) => setClientId(e.currentTarget.value)} />
      </Field>
      <Field label={`${t('Client secret')} (${settings?.clientSecretSet ? t('set') : t('not set')})`}>
        <input
          type="password"
          aria-label="Client secret"
          autocomplete="off"
          placeholder={settings?.clientSecretSet ? t('Leave empty to keep it') : ''}
          maxLength={1000}
          value={secret}
          onInput={(e) => setSecret(e.currentTarget.value)}
        />
      </Field>
      <Field label={t('Button name')}>
        <input aria-label="Button name" maxLength={60} value={buttonName} onInput={(e) => setButtonName(e.currentTarget.value)} />
      </Field>
      <Field label={t('Allowed e-mail domains')}>
        <input aria-label="Allowed e-mail domains" placeholder="example.com" value={domains} onInput={(e) => setDomains(e.currentTarget.value)} />
      </Field>
      <Field label={t('Role of members who join by domain')}>
        <select aria-label="Default role" value={defaultRole} onChange={(e) => setDefaultRole(e.currentTarget.value === 'admin' ? 'admin' : 'agent')}>
          <option value="agent">{t('Agent')}</option>
          <option value="admin">{t('Admin')}</option>
        </select>
      </Field>
      <label class="check">
        <input type="checkbox" aria-label="Password sign-in" checked={passwordLogin} onChange={(e) => setPasswordLogin(e.currentTarget.checked)} />{' '}
        {t('Members may also sign in with a password (the owner always may)')}
      </label>
      <ErrorLine error={error} />
      <StatusLine text={saved} />
      <button type="submit" aria-label="Save single sign-on" disabled={busy}>
        {t('Save')}
      </button>
    </form>
  );
}
