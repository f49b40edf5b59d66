// Single sign-on's settings (issue #45, item 2): the owner's alone (the contracts' role). The sign-in itself is on the
// console's open routes (http/console/console-plugin.ts).
import { ssoRoutes } from '@parley/contracts';
import { auditOf } from '../audit/audit-context.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import type { SsoService } from './sso-service.ts';

export function registerSsoRoutes(app: TypedApp, sso: SsoService): void {
  app.route({ ...routeOptions(ssoRoutes.getSso), handler: (request) => sso.get(consoleAccountOf(request).accountId) });
  app.route({ ...routeOptions(ssoRoutes.updateSso), handler: (request) => sso.update(consoleAccountOf(request).accountId, request.body, auditOf(request)) });
}
