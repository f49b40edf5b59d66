// Saved replies (issue #25): the Inbox inserts one when `/shortCode` is typed in the reply box.
import { cannedResponseRoutes } from '@parley/contracts';
import type { CannedResponsesService } from './canned-responses-service.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';

export function registerCannedResponseRoutes(app: TypedApp, replies: CannedResponsesService): void {
  app.route({
    ...routeOptions(cannedResponseRoutes.listCannedResponses),
    handler: (request) => replies.list(consoleAccountOf(request).accountId),
  });
  app.route({
    ...routeOptions(cannedResponseRoutes.createCannedResponse),
    handler: async (request, reply) => reply.code(201).send(await replies.create(consoleAccountOf(request).accountId, request.body)),
  });
  app.route({
    ...routeOptions(cannedResponseRoutes.updateCannedResponse),
    handler: (request) => replies.update(consoleAccountOf(request).accountId, request.params.id, request.body),
  });
  app.route({
    ...routeOptions(cannedResponseRoutes.deleteCannedResponse),
    handler: (request) => replies.remove(consoleAccountOf(request).accountId, request.params.id),
  });
}
