// Settings → Security (issue #45, item 1): the owner requires two-factor sign-in of every member (`requireTwoFactor`);
// a member without it is then sent to set it up at their next sign-in. Admins see the setting, the owner changes it.
// Below it, single sign-on (issue #45, item 2; sso-section.tsx), the owner's alone.
import { useContext, useEffect, useState } from 'preact/hooks';
import type { AccountSettings } from '@parley/contracts';
import { api } from '../../api.ts';
import { t } from '../../i18n.ts';
import { SessionContext } from '../../role.tsx';
import { ErrorLine, StatusLine } from '../../ui.tsx';
import { useAction } from '../../use-action.ts';
import { SettingsSection } from './section.tsx';
import { SsoForm } from './sso-section.tsx';

export function SecuritySection() {
  const session = useContext(SessionContext);
  const owner = session?.role === 'owner';
  const [required, setRequired] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  useEffect(() => {
    void run(async () => setRequired((await api<AccountSettings>('GET', '/account/settings/')).requireTwoFactor));
  }, []);
  const change = (next: boolean) => {
    setSaved(null);
    // The box shows the choice at once (a controlled box would otherwise spring back while the change is saved);
    // a refused change puts it back.
    setRequired(next);
    void run(async () => {
      const updated = await api<AccountSettings>('PUT', '/account/settings/', { body: { requireTwoFactor: next } }).catch((error: unknown) => {
        setRequired(!next);
        throw error;
      });
      setRequired(updated.requireTwoFactor);
      setSaved(updated.requireTwoFactor ? t('Every member now signs in with two-factor sign-in.') : t('Two-factor sign-in is each member’s choice.'));
    });
  };
  return (
    <SettingsSection name="Security" hint="Members without two-factor sign-in are asked to turn it on at their next sign-in. Only the owner changes this.">
      <label class="check">
        <input
          type="checkbox"
          aria-label="Require two-factor sign-in"
          checked={required}
          disabled={!owner || busy}
          onChange={(e) => change(e.currentTarget.checked)}
        />{' '}
        {t('Require two-factor sign-in')}
      </label>
      <ErrorLine error={error} />
      <StatusLine text={saved} />
      <SsoForm />
    </SettingsSection>
  );
}
