// Answer feedback (spec, Agent reply rating): the public API's like and dislike of an agent reply, and the Inbox's
// `correct` and corrected answer (docs/architecture.md, Console API).
import { inboxRoutes, publicRoutes } from '@parley/contracts';
import { auditOf, keyAuditOf } from '../audit/audit-context.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { asConsole } from '../http/console/not-found.ts';
import { principalOf } from '../http/public/gateway.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import type { FeedbackService } from './feedback-service.ts';

export function registerFeedbackRoutes(app: TypedApp, feedback: FeedbackService): void {
  app.route({
    ...routeOptions(publicRoutes.likeMessage),
    handler: (request) => feedback.like(principalOf(request).accountId, request.query.messageId),
  });
  app.route({
    ...routeOptions(publicRoutes.dislikeMessage),
    handler: (request) =>
      feedback.dislike(principalOf(request).accountId, request.body.messageId, request.body.textEdit, keyAuditOf(request)),
  });
}

export function registerInboxFeedbackRoutes(app: TypedApp, feedback: FeedbackService): void {
  app.route({
    ...routeOptions(inboxRoutes.markAnswerCorrect),
    handler: async (request) => {
      await asConsole(feedback.like(consoleAccountOf(request).accountId, request.params.messageId));
      return { id: request.params.messageId, rating: 'liked' as const };
    },
  });
  app.route({
    ...routeOptions(inboxRoutes.correctAnswer),
    handler: async (request) => {
      await asConsole(feedback.dislike(consoleAccountOf(request).accountId, request.params.messageId, request.body.text, auditOf(request)));
      return { id: request.params.messageId, rating: 'disliked' as const };
    },
  });
}
