// The Inbox's search box (issue #44, 1): `GET /console/v1/search`, every member, the member's account only.
import { searchRoutes } from '@parley/contracts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import type { SearchService } from './search-service.ts';

export function registerSearchRoutes(app: TypedApp, search: SearchService): void {
  app.route({
    ...routeOptions(searchRoutes.search),
    handler: (request) => search.search(consoleAccountOf(request), request.query),
  });
}
