// Settings → Alerts: the account's alert webhook (DESIGN, Alerts and follow-through): every chat handed to the team is
// posted to a Slack, Mattermost or Teams incoming webhook. Empty removes it. Each member's e-mail alerts are on Profile.
import { useEffect, useState } from 'preact/hooks';
import type { AlertSettings } from '@parley/contracts';
import { api } from '../../api.ts';
import { t } from '../../i18n.ts';
import { Field, ErrorLine, StatusLine } from '../../ui.tsx';
import { useAction } from '../../use-action.ts';
import { SettingsSection } from './section.tsx';

export function AlertsSection() {
  const [url, setUrl] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  useEffect(() => {
    void run(async () => setUrl((await api<AlertSettings>('GET', '/account/alerts/')).alertWebhookUrl ?? ''));
  }, []);
  const save = (event: Event) => {
    event.preventDefault();
    setSaved(null);
    void run(async () => {
      const updated = await api<AlertSettings>('PUT', '/account/alerts/', { body: { alertWebhookUrl: url.trim() || null } });
      setUrl(updated.alertWebhookUrl ?? '');
      setSaved(updated.alertWebhookUrl ? t('Saved: every handoff is posted to this webhook.') : t('Saved: no alert webhook.'));
    });
  };
  return (
    <SettingsSection
      name="Alerts"
      hint="A chat tool's incoming webhook (Slack, Mattermost, Teams): every chat handed to the team is posted there with its link. Leave it empty for none."
    >
      <form aria-label="Alert settings" onSubmit={save}>
        <Field label={t('Alert webhook URL')}>
          <input
            type="url"
            aria-label="Alert webhook URL"
            placeholder="https://hooks.slack.com/services/…"
            maxLength={2000}
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </Field>
        <ErrorLine error={error} />
        <StatusLine text={saved} />
        <button type="submit" aria-label="Save alert settings" disabled={busy}>
          {t('Save')}
        </button>
      </form>
    </SettingsSection>
  );
}
