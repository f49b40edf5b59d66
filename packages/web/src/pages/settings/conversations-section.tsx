// Settings → Conversations: when a conversation ends by itself (`resolutionQuietMinutes`: no customer message for
// that long), which the reports count by; and how long ended conversations are kept (`retentionDays`, issue #45:
// empty keeps them).
import { useEffect, useState } from 'preact/hooks';
import type { AccountSettings } from '@parley/contracts';
import { api } from '../../api.ts';
import { t } from '../../i18n.ts';
import { Field, ErrorLine, StatusLine } from '../../ui.tsx';
import { useAction } from '../../use-action.ts';
import { SettingsSection } from './section.tsx';
import { spokenMinutes } from '../../plural.ts';

/** The contract's bounds (RESOLUTION_QUIET_MINUTES_MIN/MAX: types only come from @parley/contracts into the bundle). */
const MIN = 1;
const MAX = 10080;
/** RETENTION_DAYS_MIN/MAX. */
const RETENTION_MIN = 7;
const RETENTION_MAX = 3650;

export function ConversationsSection() {
  const [minutes, setMinutes] = useState('');
  const [retention, setRetention] = useState('');
  const show = (settings: AccountSettings) => {
    setMinutes(String(settings.resolutionQuietMinutes));
    setRetention(settings.retentionDays === null ? '' : String(settings.retentionDays));
  };
  const [saved, setSaved] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  useEffect(() => {
    void run(async () => show(await api<AccountSettings>('GET', '/account/settings/')));
  }, []);
  const save = (event: Event) => {
    event.preventDefault();
    setSaved(null);
    void run(async () => {
      const updated = await api<AccountSettings>('PUT', '/account/settings/', {
        body: { resolutionQuietMinutes: Number(minutes), retentionDays: retention.trim() === '' ? null : Number(retention) },
      });
      show(updated);
      const kept =
        updated.retentionDays === null
          ? t('Ended conversations are kept.')
          : t('Conversations ended more than {days} days ago are deleted.').replace('{days}', String(updated.retentionDays));
      setSaved(`${t('Saved: a conversation now ends after')} ${spokenMinutes(updated.resolutionQuietMinutes)} ${t('without a customer message.')} ${kept}`);
    });
  };
  const value = Number(minutes);
  return (
    <SettingsSection
      name="Conversations"
      hint="A conversation ends when its task is marked done, or when the customer has not written for this long; the reports count it then."
    >
      <form aria-label="Conversation settings" onSubmit={save}>
        <Field label={t('Quiet time (minutes)')}>
          <input
            type="number"
            aria-label="Quiet time (minutes)"
            required
            min={MIN}
            max={MAX}
            step={1}
            value={minutes}
            onInput={(e) => setMinutes(e.currentTarget.value)}
          />
        </Field>
        <p class="muted small">
          {Number.isInteger(value) && value >= MIN && value <= MAX ? `= ${spokenMinutes(value)}. ` : ''}
          {t('From 1 minute to 7 days (10080 minutes); 1440 is one day.')}
        </p>
        <Field label={t('Keep ended conversations (days)')}>
          <input
            type="number"
            aria-label="Keep ended conversations (days)"
            min={RETENTION_MIN}
            max={RETENTION_MAX}
            step={1}
            placeholder={t('forever')}
            value={retention}
            onInput={(e) => setRetention(e.currentTarget.value)}
          />
        </Field>
        <p class="muted small">
          {t("Empty: kept. From 7 to 3650 days: older ended conversations are deleted with their messages and files; the reports' counts stay.")}
        </p>
        <ErrorLine error={error} />
        <StatusLine text={saved} />
        <button type="submit" aria-label="Save conversation settings" disabled={busy}>
          {t('Save')}
        </button>
      </form>
    </SettingsSection>
  );
}
