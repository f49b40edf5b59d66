import { publicRoutes } from '@parley/contracts';
import type { FeedService } from './feed-service.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { principalOf } from '../http/public/gateway.ts';

export function registerEventRoutes(app: TypedApp, feed: FeedService): void {
  app.route({
    ...routeOptions(publicRoutes.listEvents),
    handler: (request) => feed.list(principalOf(request).accountId, request.query),
  });
}
