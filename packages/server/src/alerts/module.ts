// Alerts and follow-through (issue #33): the alert jobs (chat-tool webhook, e-mails), the alert queue the features
// that flag chats write into, who is online (presence), and the account's alert webhook setting.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Database } from '../db/client.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { UrlGuard } from '../kernel/url-guard.ts';
import { registerAlertRoutes } from './alert-routes.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { ALERT_WEBHOOK_RETRY, createAlertJobs, type AlertMailer, type AlertPoster } from './alert-jobs.ts';
import { createAlertQueue } from './alert-queue.ts';
import { createAlertsService } from './alerts-service.ts';
import { createAlertsStore } from './alerts-store.ts';
import { createPresence } from './presence.ts';

/** The shared pieces alerts use (core.ts satisfies it). */
export interface AlertsCore {
  app: FastifyInstance;
  db: Database;
  logger: FastifyBaseLogger;
  config: { publicUrl: string; alertEmailDelaySeconds?: number | undefined };
  jobs: Pick<JobQueue, 'handle' | 'enqueue' | 'wakeIn'>;
  mailer: AlertMailer;
  webhookClient: AlertPoster;
  urlGuard: Pick<UrlGuard, 'check'>;
}

export function createAlertsModule(core: AlertsCore) {
  const store = createAlertsStore(core.db);
  const emailDelayMs = (core.config.alertEmailDelaySeconds ?? 60) * 1000;
  const jobs = createAlertJobs({ store, mailer: core.mailer, poster: core.webhookClient, publicUrl: core.config.publicUrl, logger: core.logger });
  core.jobs.handle('alerts.webhook', (payload) => jobs.webhook(payload), ALERT_WEBHOOK_RETRY);
  core.jobs.handle('alerts.email', (payload) => jobs.email(payload));
  const presence = createPresence({ store, logger: core.logger });
  core.app.addHook('onReady', async () => presence.start());
  core.app.addHook('preClose', () => presence.stop());
  const alerts = createAlertsService({ store, db: core.db, urlGuard: core.urlGuard });
  return {
    queue: createAlertQueue(core.jobs, emailDelayMs),
    presence,
    emailDelayMs,
    consoleRoutes: (api) => registerAlertRoutes(api, alerts),
  } satisfies FeatureModule & Record<string, unknown>;
}
