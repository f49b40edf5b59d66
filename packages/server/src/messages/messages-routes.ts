import { publicRoutes } from '@parley/contracts';
import type { MessagesService } from './messages-service.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { principalOf } from '../http/public/gateway.ts';
import type { preValidationAsyncHookHandler } from 'fastify';

export function registerMessageRoutes(
  app: TypedApp,
  messages: MessagesService,
  readUploads: preValidationAsyncHookHandler,
): void {
  app.route({
    ...routeOptions(publicRoutes.sendMessageUniversal),
    preValidation: readUploads,
    // 201 with an empty body whether or not the message was kept (spec, rules 3 and 4).
    handler: async (request, reply) => {
      await messages.sendUniversal(principalOf(request).accountId, request.body, request.uploads);
      return reply.code(201).send();
    },
  });
}
