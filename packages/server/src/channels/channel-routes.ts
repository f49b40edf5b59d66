import { CHANNEL_KINDS, channelKindRoutes, channelRoutes } from '@parley/contracts';
import type { ChannelsService } from './channels-service.ts';
import { Errors } from '../errors.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { auditOf } from '../audit/audit-context.ts';

export function registerChannelRoutes(app: TypedApp, channels: ChannelsService): void {
  for (const kind of CHANNEL_KINDS) {
    const routes = channelKindRoutes[kind];
    app.route({
      ...routeOptions(routes.connect),
      handler: async (request, reply) =>
        reply.code(201).send(await channels.connect(consoleAccountOf(request).accountId, kind, request.body, auditOf(request))),
    });
    app.route({
      ...routeOptions(routes.update),
      handler: (request) => channels.update(consoleAccountOf(request).accountId, kind, request.params.id, request.body, auditOf(request)),
    });
  }
  // Any other `{type}`: a clear 400 rather than a bare 404 (the kind routes above are matched first).
  const unknownKind = (request: { params: unknown }) => {
    throw Errors.unknownChannelKind(String((request.params as { type?: unknown }).type), CHANNEL_KINDS);
  };
  app.post('/channel/:type/connect/', { config: { role: 'admin' } }, unknownKind);
  app.put('/channel/:type/:id/', { config: { role: 'admin' } }, unknownKind);

  app.route({
    ...routeOptions(channelRoutes.getChannel),
    handler: (request) => channels.get(consoleAccountOf(request).accountId, request.params.type, request.params.id),
  });
  app.route({
    ...routeOptions(channelRoutes.deleteChannel),
    handler: (request) => channels.remove(consoleAccountOf(request).accountId, request.params.type, request.params.id, auditOf(request)),
  });
  app.route({
    ...routeOptions(channelRoutes.listChannels),
    handler: (request) => channels.list(consoleAccountOf(request).accountId),
  });
  app.route({
    ...routeOptions(channelRoutes.testWebhook),
    handler: (request) =>
      channels.testWebhook(consoleAccountOf(request).accountId, request.params.type, request.params.id),
  });
}
