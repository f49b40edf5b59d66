// The Inbox: a team member acts on the account's chats (docs/architecture.md, Console API). A chat's history, notes
// and team replies are the messages feature's (messages/inbox-routes.ts), its tags the tags feature's
// (tags/inbox-tag-routes.ts), the rating of answers the feedback feature's (feedback/feedback-routes.ts).
import { inboxRoutes } from '@parley/contracts';
import type { ChatsService } from './chats-service.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';

export function registerInboxRoutes(app: TypedApp, chats: ChatsService): void {
  app.route({
    ...routeOptions(inboxRoutes.listInboxChats),
    handler: (request) => chats.listInboxChats(consoleAccountOf(request), request.query),
  });
  app.route({
    ...routeOptions(inboxRoutes.assignChat),
    handler: (request) => chats.assign(consoleAccountOf(request).accountId, request.params.chatId, request.body.memberId),
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
  app.route({
    ...routeOptions(inboxRoutes.getInboxChat),
    handler: (request) => chats.getChat(consoleAccountOf(request).accountId, request.params.chatId),
  });
  app.route({
    ...routeOptions(inboxRoutes.getChatCustomer),
    handler: (request) => chats.customerOf(consoleAccountOf(request).accountId, request.params.chatId),
  });
  app.route({
    ...routeOptions(inboxRoutes.readInboxChat),
    handler: async (request) => {
      const { accountId } = consoleAccountOf(request);
      await chats.getChat(accountId, request.params.chatId);
      await chats.read(accountId, request.params.chatId);
      return chats.getChat(accountId, request.params.chatId);
    },
  });
  app.route({
    ...routeOptions(inboxRoutes.unreadInboxChat),
    handler: async (request) => {
      const { accountId } = consoleAccountOf(request);
      await chats.getChat(accountId, request.params.chatId);
      await chats.unread(accountId, request.params.chatId);
      return chats.getChat(accountId, request.params.chatId);
    },
  });
  for (const [contract, banned] of [
    [inboxRoutes.banInboxChat, true],
    [inboxRoutes.unbanInboxChat, false],
  ] as const) {
    app.route({
      ...routeOptions(contract),
      handler: async (request) => {
        const { accountId } = consoleAccountOf(request);
        await chats.setBanned(accountId, request.params.chatId, banned);
        return chats.getChat(accountId, request.params.chatId);
      },
    });
  }
}
