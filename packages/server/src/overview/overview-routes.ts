import { overviewRoutes } from '@parley/contracts';
import type { OverviewService } from './overview-service.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';

export function registerOverviewRoutes(app: TypedApp, overview: OverviewService): void {
  app.route({
    ...routeOptions(overviewRoutes.getOverview),
    handler: (request) => overview.overview(consoleAccountOf(request).accountId, request.query.days),
  });
}
