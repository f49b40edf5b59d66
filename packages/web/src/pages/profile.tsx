// The member's own page (issue #33): name, e-mail alerts, browser notifications, and the password (the member's
// other sessions end; this one stays signed in), and where the member is signed in (issue #45).
import { useEffect, useState } from 'preact/hooks';
import type { EmailAlerts, Profile } from '@parley/contracts';
import { api } from '../api.ts';
import { PROFILE_SAVED_EVENT } from '../alerts.tsx';
import { t } from '../i18n.ts';
import { useAction } from '../use-action.ts';
import { useServerInfo } from '../server-info.ts';
import { ErrorLine, Field, StatusLine } from '../ui.tsx';
import { SessionsSection } from './sessions-section.tsx';
import { TwoFactorSection } from './two-factor-section.tsx';

export function ProfilePage({ onRenamed }: { onRenamed: (name: string) => void }) {
  const [profile, setProfile] = useState<Profile | null>(null);
  const [name, setName] = useState('');
  const [emailAlerts, setEmailAlerts] = useState<EmailAlerts>('handoffs');
  const [browser, setBrowser] = useState(true);
  const [awayWhenOffline, setAwayWhenOffline] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [changed, setChanged] = useState<string | null>(null);
  const save = useAction();
  const password = useAction();
  const server = useServerInfo();
  const noEmail = server?.emailConfigured === false;

  useEffect(() => {
    void save.run(async () => {
      const loaded = await api<Profile>('GET', '/me/');
      setProfile(loaded);
      setName(loaded.name);
      setEmailAlerts(loaded.notifications.email);
      setBrowser(loaded.notifications.browser);
      setAwayWhenOffline(loaded.awayWhenOffline);
    });
  }, []);

  const saveProfile = (event: Event) => {
    event.preventDefault();
    setSaved(null);
    void save.run(async () => {
      const updated = await api<Profile>('PUT', '/me/', { body: { name, notifications: { email: emailAlerts, browser }, awayWhenOffline } });
      setProfile(updated);
      onRenamed(updated.name);
      dispatchEvent(new Event(PROFILE_SAVED_EVENT));
      setSaved(t('Profile saved.'));
    });
  };

  const changePassword = (event: Event) => {
    event.preventDefault();
    setChanged(null);
    void password.run(async () => {
      await api('PUT', '/me/password', { body: { currentPassword, newPassword } });
      setCurrentPassword('');
      setNewPassword('');
      setChanged(t('Password changed. Your other sessions were signed out.'));
    });
  };

  return (
    <section class="profile">
      <h1>{t('Profile')}</h1>
      {profile && (
        <p class="muted">
          {profile.email} · {t(profile.role === 'owner' ? 'Owner' : profile.role === 'admin' ? 'Admin' : 'Agent')}
        </p>
      )}
      <form onSubmit={saveProfile}>
        <Field label={t('Name')}>
          <input aria-label="Name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field label={t('E-mail alerts')}>
          <select
            aria-label="E-mail alerts"
            aria-describedby={noEmail ? 'no-email-note' : undefined}
            value={emailAlerts}
            onChange={(e) => setEmailAlerts(e.currentTarget.value as EmailAlerts)}
          >
            <option value="handoffs">{t('Chats that need a person')}</option>
            <option value="mine">{t('Those, and new messages in my chats')}</option>
            <option value="off">{t('None')}</option>
          </select>
        </Field>
        {noEmail && (
          <p id="no-email-note" class="note" role="note" aria-label="E-mail not set up">
            {t('E-mail is not set up on this server (no SMTP_URL): no alert e-mails are sent. Your choice is kept for when it is; browser notifications work meanwhile.')}
          </p>
        )}
        <label class="check">
          <input type="checkbox" aria-label="Browser notifications" checked={browser} onChange={(e) => setBrowser(e.currentTarget.checked)} />
          <span>{t('Browser notifications')}</span>
        </label>
        <label class="check">
          <input
            type="checkbox"
            aria-label="Away when I close the web account"
            checked={awayWhenOffline}
            onChange={(e) => setAwayWhenOffline(e.currentTarget.checked)}
          />
          <span>{t('Away when I close the web account')}</span>
        </label>
        <ErrorLine error={save.error} />
        <StatusLine text={saved} />
        <button type="submit" aria-label="Save profile" disabled={save.busy}>
          {t('Save profile')}
        </button>
      </form>
      <h2>{t('Password')}</h2>
      <form onSubmit={changePassword}>
        <Field label={t('Current password')}>
          <input
            type="password"
            aria-label="Current password"
            autocomplete="current-password"
            required
            value={currentPassword}
            onInput={(e) => setCurrentPassword(e.currentTarget.value)}
          />
        </Field>
        <Field label={t('New password')}>
          <input
            type="password"
            aria-label="New password"
            autocomplete="new-password"
            required
            minLength={8}
            value={newPassword}
            onInput={(e) => setNewPassword(e.currentTarget.value)}
          />
        </Field>
        <ErrorLine error={password.error} />
        <StatusLine text={changed} />
        <button type="submit" aria-label="Change password" disabled={password.busy}>
          {t('Change password')}
        </button>
      </form>
      <TwoFactorSection />
      <SessionsSection />
    </section>
  );
}
