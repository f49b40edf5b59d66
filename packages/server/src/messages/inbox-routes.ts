// The Inbox's history of a chat, its private notes and the team's replies (docs/architecture.md, Console API); the
// chat itself is the chats feature's (chats/inbox-routes.ts).
import { inboxRoutes } from '@parley/contracts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import type { MessagesService } from './messages-service.ts';
import type { NotesService } from './notes-service.ts';

export function registerInboxMessageRoutes(app: TypedApp, { messages, notes }: { messages: MessagesService; notes: NotesService }): void {
  app.route({
    ...routeOptions(inboxRoutes.listMessages),
    handler: async (request) => {
      const { accountId } = consoleAccountOf(request);
      const limit = request.query.limit ?? 200;
      const history = await messages.listMessages(accountId, request.params.chatId, limit);
      return { messages: await notes.history(accountId, request.params.chatId, history.messages, limit) };
    },
  });
  app.route({
    ...routeOptions(inboxRoutes.addNote),
    handler: async (request, reply) =>
      reply.code(201).send(await notes.addNote(consoleAccountOf(request), request.params.chatId, request.body.text)),
  });
  app.route({
    ...routeOptions(inboxRoutes.sendTeamReply),
    handler: async (request, reply) => {
      const member = consoleAccountOf(request);
      const message = await messages.sendTeamReply(member.accountId, request.params.chatId, request.body.text, member);
      return reply.code(201).send(message);
    },
  });
}
