// The Inbox: a team member acts on the account's chats (DESIGN.md, Console API).
import { inboxRoutes } from '@parley/contracts';
import type { ChatsService } from '../../chats/chats-service.ts';
import type { MessagesService } from '../../messages/messages-service.ts';
import { routeOptions, type TypedApp } from '../route-options.ts';
import { consoleAccountOf } from './console-plugin.ts';

export function registerInboxRoutes(app: TypedApp, chats: ChatsService, messages: MessagesService): void {
  app.route({
    ...routeOptions(inboxRoutes.listInboxChats),
    handler: (request) => chats.listChats(consoleAccountOf(request).accountId, request.query),
  });
  app.route({
    ...routeOptions(inboxRoutes.listMessages),
    handler: (request) =>
      messages.listMessages(consoleAccountOf(request).accountId, request.params.chatId, request.query.limit),
  });
  app.route({
    ...routeOptions(inboxRoutes.sendTeamReply),
    handler: async (request, reply) => {
      const member = consoleAccountOf(request);
      const message = await messages.sendTeamReply(member.accountId, request.params.chatId, request.body.text, member);
      return reply.code(201).send(message);
    },
  });
  app.route({
    ...routeOptions(inboxRoutes.pauseChat),
    handler: (request) => chats.setPaused(consoleAccountOf(request).accountId, request.params.chatId, true),
  });
  app.route({
    ...routeOptions(inboxRoutes.resumeChat),
    handler: (request) => chats.setPaused(consoleAccountOf(request).accountId, request.params.chatId, false),
  });
  app.route({
    ...routeOptions(inboxRoutes.setChatStatus),
    handler: (request) => {
      const member = consoleAccountOf(request);
      return chats.setStatusManually(member.accountId, request.params.chatId, request.body.status, member.email);
    },
  });
}
