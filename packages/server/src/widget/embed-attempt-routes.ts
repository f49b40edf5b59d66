import { channelRoutes } from '@parley/contracts';
import type { EmbedAttempts } from './embed-attempts.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';

export function registerEmbedAttemptRoutes(app: TypedApp, embedAttempts: Pick<EmbedAttempts, 'list'>): void {
  app.route({
    ...routeOptions(channelRoutes.listEmbedAttempts),
    handler: (request) => embedAttempts.list(consoleAccountOf(request).accountId, request.params.id),
  });
}
