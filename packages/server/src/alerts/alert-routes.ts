// The account's alert webhook (issue #33); admins only (the contract's `role`).
import { profileRoutes } from '@parley/contracts';
import type { AlertsService } from './alerts-service.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { auditOf } from '../audit/audit-context.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';

export function registerAlertRoutes(app: TypedApp, alerts: AlertsService): void {
  app.route({
    ...routeOptions(profileRoutes.getAlertSettings),
    handler: (request) => alerts.settings(consoleAccountOf(request).accountId),
  });
  app.route({
    ...routeOptions(profileRoutes.updateAlertSettings),
    handler: (request) => alerts.update(consoleAccountOf(request).accountId, request.body, auditOf(request)),
  });
}
