// The Inbox: a team member acts on the account's chats (docs/architecture.md, Console API).
import { inboxRoutes } from '@parley/contracts';
import type { ChatsService } from '../../chats/chats-service.ts';
import { DomainError, Errors } from '../../errors.ts';
import type { FeedbackService } from '../../feedback/feedback-service.ts';
import type { MessagesService } from '../../messages/messages-service.ts';
import type { NotesService } from '../../messages/notes-service.ts';
import type { TagsService } from '../../tags/tags-service.ts';
import { routeOptions, type TypedApp } from '../route-options.ts';
import { consoleAccountOf } from './console-plugin.ts';

export interface InboxDeps {
  chats: ChatsService;
  messages: MessagesService;
  notes: NotesService;
  tags: Pick<TagsService, 'tagChat' | 'removeTagFromChat'>;
  feedback: FeedbackService;
}

/** The public API's "not found" (400) of a message or tag is the console's 404. */
async function asConsole<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof DomainError && error.key === 'messageNotFound') throw Errors.consoleMessageNotFound();
    if (error instanceof DomainError && error.key === 'tagNotFound') throw Errors.consoleTagNotFound();
    throw error;
  }
}

export function registerInboxRoutes(app: TypedApp, { chats, messages, notes, tags, feedback }: InboxDeps): void {
  app.route({
    ...routeOptions(inboxRoutes.listInboxChats),
    handler: (request) => chats.listInboxChats(consoleAccountOf(request), request.query),
  });
  app.route({
    ...routeOptions(inboxRoutes.assignChat),
    handler: (request) => chats.assign(consoleAccountOf(request).accountId, request.params.chatId, request.body.memberId),
  });
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
  app.route({
    ...routeOptions(inboxRoutes.addInboxChatTag),
    handler: async (request) => {
      const { accountId } = consoleAccountOf(request);
      await chats.getChat(accountId, request.params.chatId);
      await tags.tagChat(accountId, request.params.chatId, request.body.name).catch((error: unknown) => {
        // Tagging twice leaves the chat tagged: no error for the Inbox.
        if (!(error instanceof DomainError && error.key === 'tagAlreadyExist')) throw error;
      });
      return chats.getChat(accountId, request.params.chatId);
    },
  });
  app.route({
    ...routeOptions(inboxRoutes.removeInboxChatTag),
    handler: async (request) => {
      const { accountId } = consoleAccountOf(request);
      await chats.getChat(accountId, request.params.chatId);
      await asConsole(tags.removeTagFromChat(accountId, request.params.chatId, request.params.name));
      return chats.getChat(accountId, request.params.chatId);
    },
  });
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
      await asConsole(feedback.dislike(consoleAccountOf(request).accountId, request.params.messageId, request.body.text));
      return { id: request.params.messageId, rating: 'disliked' as const };
    },
  });
}
