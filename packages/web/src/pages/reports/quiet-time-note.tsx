// How an open conversation ends, said where the reports count them (issue #42, item 7): on day one nothing has
// ended yet, and the figures wait for the task marked done or the account's quiet time (Settings, for admins).
import { useEffect, useState } from 'preact/hooks';
import type { AccountSettings } from '@parley/contracts';
import { api } from '../../api.ts';
import { t } from '../../i18n.ts';
import { spokenMinutes } from '../../plural.ts';
import { useCanManage } from '../../role.tsx';
import { Link } from '../../ui.tsx';

export function QuietTimeNote() {
  const canManage = useCanManage();
  const [minutes, setMinutes] = useState<number | null>(null);
  useEffect(() => {
    api<AccountSettings>('GET', '/account/settings/').then((settings) => setMinutes(settings.resolutionQuietMinutes), () => setMinutes(null));
  }, []);
  if (minutes === null) return null;
  return (
    <p class="muted small">
      {t('A conversation ends when its task is marked done, or after')} {spokenMinutes(minutes)} {t('without a customer message.')}{' '}
      {canManage && <Link href="/settings">{t('Change it in Settings')}</Link>}
    </p>
  );
}
