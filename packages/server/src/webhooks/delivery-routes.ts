import { deliveryRoutes } from '@parley/contracts';
import type { DeliveriesService } from './deliveries-service.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';

export function registerDeliveryRoutes(app: TypedApp, deliveries: DeliveriesService): void {
  app.route({
    ...routeOptions(deliveryRoutes.listDeliveries),
    handler: (request) =>
      deliveries.list(consoleAccountOf(request).accountId, request.params.type, request.params.id, request.query.limit),
  });
  app.route({
    ...routeOptions(deliveryRoutes.redeliver),
    handler: async (request, reply) =>
      reply.code(202).send(await deliveries.redeliver(consoleAccountOf(request).accountId, request.params.deliveryId)),
  });
  app.route({
    ...routeOptions(deliveryRoutes.redeliverFailed),
    handler: async (request, reply) =>
      reply
        .code(202)
        .send(
          await deliveries.redeliverFailed(consoleAccountOf(request).accountId, request.params.type, request.params.id, request.body),
        ),
  });
}
