// Answer feedback (spec, Agent reply rating): like marks an agent reply correct; dislike stores the
// customer's preceding question with the corrected answer in the channel's knowledge base.
import { QUESTION_MAX } from '@parley/contracts';
import type { AuditContext } from '../audit/audit-record.ts';
import type { ChannelsStore } from '../channels/channels-store.ts';
import type { ChatsStore } from '../chats/chats-store.ts';
import type { Database, Executor } from '../db/client.ts';
import { Errors } from '../errors.ts';
import type { KnowledgeService } from '../knowledge/knowledge-service.ts';
import { isUuid } from '../lib/ids.ts';
import type { MessageRow, MessagesStore } from '../messages/messages-store.ts';

export interface FeedbackServiceDeps {
  db: Database;
  messagesStore: (executor: Executor) => MessagesStore;
  chatsStore: (executor: Executor) => Pick<ChatsStore, 'find'>;
  channelsStore: (executor: Executor) => Pick<ChannelsStore, 'find'>;
  knowledge: (executor: Executor) => Pick<KnowledgeService, 'learnCorrection'>;
}

export function createFeedbackService({ db, messagesStore, chatsStore, channelsStore, knowledge }: FeedbackServiceDeps) {
  /** Only agent replies can be rated; any other message is "not found" (docs/architecture.md decision). */
  async function requireAgentReply(accountId: string, messageId: string): Promise<MessageRow> {
    const message = isUuid(messageId) ? await messagesStore(db).find(accountId, messageId) : undefined;
    if (!message || message.origin !== 'agent') throw Errors.messageNotFound();
    return message;
  }

  return {
    async like(accountId: string, messageId: string) {
      const message = await requireAgentReply(accountId, messageId);
      if (message.rating === 'disliked') throw Errors.messageAlreadyDisliked();
      if (message.rating === null) await messagesStore(db).rate(message.id, 'liked');
      return { message: 'Message liked' as const };
    },

    /** `context`: who corrected (an API key, or a member in the Inbox): the entry's change is audited as theirs. */
    async dislike(accountId: string, messageId: string, textEdit: string, context: AuditContext) {
      const message = await requireAgentReply(accountId, messageId);
      if (message.rating === 'disliked') throw Errors.messageAlreadyDisliked();
      if (message.rating === 'liked') throw Errors.messageAlreadyLiked();
      await db.transaction(async (tx) => {
        const store = messagesStore(tx);
        const chat = await chatsStore(tx).find(accountId, message.chatId);
        const channel = chat ? await channelsStore(tx).find(accountId, chat.channelId) : undefined;
        if (!channel?.knowledgeBaseId) throw Errors.knowledgeBaseNotConnected();
        // Rated in the same transaction as the entry: a concurrent second dislike finds it rated and fails.
        if (!(await store.rate(message.id, 'disliked'))) throw Errors.messageAlreadyDisliked();
        // The question the reply answered; a reply with no customer message before it (a greeting) keeps its own text.
        const question = (await store.previousCustomerMessage(message.chatId, message))?.text ?? message.text;
        // The question is kept: a new correction entry, or a paraphrase of the entry that already gives this answer.
        await knowledge(tx).learnCorrection(accountId, channel.knowledgeBaseId, {
          question: question.slice(0, QUESTION_MAX),
          answer: textEdit,
          messageId: message.id,
        }, context);
      });
      return { message: 'Message disliked' as const };
    },
  };
}

export type FeedbackService = ReturnType<typeof createFeedbackService>;
