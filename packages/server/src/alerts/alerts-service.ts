// The account's alert webhook (issue #33): read and set by admins; a URL is checked by the URL guard when saved
// and again at each post (webhooks/http-client.ts).
import type { AlertSettings } from '@parley/contracts';
import type { UrlGuard } from '../webhooks/url-guard.ts';
import type { AlertsStore } from './alerts-store.ts';

export function createAlertsService(deps: { store: Pick<AlertsStore, 'webhookUrl' | 'setWebhookUrl'>; urlGuard: Pick<UrlGuard, 'check'> }) {
  const { store, urlGuard } = deps;
  return {
    async settings(accountId: string): Promise<AlertSettings> {
      return { alertWebhookUrl: (await store.webhookUrl(accountId)) ?? null };
    },
    async update(accountId: string, body: AlertSettings): Promise<AlertSettings> {
      const url = body.alertWebhookUrl === null ? null : (await urlGuard.check(body.alertWebhookUrl, 'alertWebhookUrl')).toString();
      await store.setWebhookUrl(accountId, url);
      return { alertWebhookUrl: url };
    },
  };
}

export type AlertsService = ReturnType<typeof createAlertsService>;
