import { publicRoutes } from '@parley/contracts';
import type { FeedbackService } from '../../feedback/feedback-service.ts';
import type { MessagesService } from '../../messages/messages-service.ts';
import { routeOptions, type TypedApp } from '../route-options.ts';
import { principalOf } from './gateway.ts';
import type { preValidationAsyncHookHandler } from 'fastify';

export function registerMessageRoutes(
  app: TypedApp,
  messages: MessagesService,
  feedback: FeedbackService,
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
  app.route({
    ...routeOptions(publicRoutes.likeMessage),
    handler: (request) => feedback.like(principalOf(request).accountId, request.query.messageId),
  });
  app.route({
    ...routeOptions(publicRoutes.dislikeMessage),
    handler: (request) =>
      feedback.dislike(principalOf(request).accountId, request.body.messageId, request.body.textEdit),
  });
}
