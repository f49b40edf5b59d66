// The Inbox's tags of a chat (docs/architecture.md, Console API): each answers with the chat as it is now.
import { inboxRoutes } from '@parley/contracts';
import type { ChatsService } from '../chats/chats-service.ts';
import { DomainError } from '../errors.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { asConsole } from '../http/console/not-found.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import type { TagsService } from './tags-service.ts';

export interface InboxTagDeps {
  chats: Pick<ChatsService, 'getChat'>;
  tags: Pick<TagsService, 'tagChat' | 'removeTagFromChat'>;
}

export function registerInboxTagRoutes(app: TypedApp, { chats, tags }: InboxTagDeps): void {
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
}
