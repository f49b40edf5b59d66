// The account's alert webhook (issue #33): read and set by admins; a URL is checked by the URL guard when saved
// and again at each post (kernel/http-client.ts).
import type { AlertSettings } from '@parley/contracts';
import type { UrlGuard } from '../kernel/url-guard.ts';
import { diffChanges, recordAudit, type AuditContext } from '../audit/audit-record.ts';
import type { Database } from '../db/client.ts';
import { createAlertsStore, type AlertsStore } from './alerts-store.ts';

export function createAlertsService(deps: { store: Pick<AlertsStore, 'webhookUrl' | 'setWebhookUrl'>; db: Database; urlGuard: Pick<UrlGuard, 'check'> }) {
  const { store, db, urlGuard } = deps;
  return {
    async settings(accountId: string): Promise<AlertSettings> {
      return { alertWebhookUrl: (await store.webhookUrl(accountId)) ?? null };
    },
    /** The URL is checked before the transaction (DNS); the change and its audit event are written together. */
    async update(accountId: string, body: AlertSettings, audit: AuditContext): Promise<AlertSettings> {
      const url = body.alertWebhookUrl === null ? null : (await urlGuard.check(body.alertWebhookUrl, 'alertWebhookUrl')).toString();
      await db.transaction(async (tx) => {
        const txStore = createAlertsStore(tx);
        const before = (await txStore.webhookUrl(accountId)) ?? null;
        await txStore.setWebhookUrl(accountId, url);
        const changes = diffChanges({ alertWebhookUrl: before }, { alertWebhookUrl: url });
        if (Object.keys(changes).length > 0) {
          await recordAudit(tx, audit, { accountId, kind: 'alerts.updated', target: { type: 'account', id: accountId, name: null }, changes });
        }
      });
      return { alertWebhookUrl: url };
    },
  };
}

export type AlertsService = ReturnType<typeof createAlertsService>;
