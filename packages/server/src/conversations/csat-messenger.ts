// Messenger CSAT (docs/architecture.md, Outcomes and reports): when a conversation of a messenger chat ends (done or
// quiet time), the sweep asks the customer `How did we do?` once, in the channel's language, as an `auto` message
// marked `csat` (with its new_messages event) that goes out through the messengers' send jobs (messenger-outbound.ts) with 1–5 as the messenger's
// quick replies; the question and the conversation's `csat_asked_at` are written in one transaction, the sending is
// a job after it. The customer's next message, when it is exactly 1–5 (a tap or the text) within CSAT_RECENT_MS of
// the question, is that conversation's rating: stored as a customer message marked `csat`, which the conversation
// trigger and the agent skip (no new conversation, no reply, no new_messages event).
import type { ChannelRow, ChannelsStore } from '../channels/channels-store.ts';
import type { CustomerDelivery } from '../messages/customer-delivery.ts';
import { DEFAULT_SETTINGS } from '../channels/channels-service.ts';
import { createChatsStore } from '../chats/chats-store.ts';
import type { Database, Executor } from '../db/client.ts';
import { csatQuestionText } from '../agent/agent-texts.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { recordNewMessage } from '../messages/message-events.ts';
import { createMessagesStore } from '../messages/messages-store.ts';
import { createConversationsStore } from './conversations-store.ts';
import { CSAT_RECENT_MS } from './csat.ts';

const BATCH = 200;

/** A customer's messenger message, as the inbound webhook parsed it. */
export interface MessengerReply {
  externalId: string;
  externalChatId: string;
  senderName: string | null;
  dialogName: string | null;
  text: string;
}

export interface MessengerCsatDeps {
  db: Database;
  clock: Clock;
  customerDelivery: CustomerDelivery;
  channelsStoreOf: (executor: Executor) => Pick<ChannelsStore, 'find'>;
  /** After a commit that wrote new_messages events: their deliveries start at once. */
  eventsCommitted?: () => void;
}

/** The rating a reply gives: exactly 1–5, trimmed; null for anything else. */
export function ratingOf(text: string): number | null {
  const trimmed = text.trim();
  return /^[1-5]$/.test(trimmed) ? Number(trimmed) : null;
}

export function createMessengerCsat({ db, clock, customerDelivery, channelsStoreOf, eventsCommitted = () => {} }: MessengerCsatDeps) {
  return {
    /** Asks every messenger conversation that ended recently and was never asked: how many were asked. */
    async askEnded(now: Date = clock.now()): Promise<number> {
      let asked = 0;
      for (;;) {
        const count = await db.transaction(async (tx) => {
          const due = await createConversationsStore(tx).claimCsatQuestions(now, CSAT_RECENT_MS, BATCH);
          for (const conversation of due) {
            const [chat, channel] = await Promise.all([
              createChatsStore(tx).find(conversation.accountId, conversation.chatId),
              channelsStoreOf(tx).find(conversation.accountId, conversation.channelId),
            ]);
            if (!chat || !channel) continue;
            const message = await createMessagesStore(tx).insert({
              id: newId(),
              accountId: chat.accountId,
              chatId: chat.id,
              role: 'assistant',
              origin: 'auto',
              senderName: null,
              text: csatQuestionText({ ...DEFAULT_SETTINGS, ...channel.settings }.aiLang),
              attachments: [],
              csat: true,
              createdAt: now,
            });
            if (!message) continue;
            // Delivered to the customer, so a new_messages event like every auto-reply's.
            await recordNewMessage(tx, channelsStoreOf, chat, message, now);
            await customerDelivery.enqueue(tx, chat, message);
          }
          return due.length;
        });
        asked += count;
        if (count < BATCH) break;
      }
      if (asked > 0) {
        eventsCommitted();
        customerDelivery.wake();
      }
      return asked;
    },

    /**
     * A messenger customer's message that rates the conversation they were asked about: stored (marked `csat`) and
     * the rating kept; false when it is no rating (the caller stores it as an ordinary message).
     */
    async takeRating(channel: ChannelRow, reply: MessengerReply): Promise<boolean> {
      const rating = ratingOf(reply.text);
      if (rating === null) return false;
      const now = clock.now();
      return db.transaction(async (tx) => {
        const store = createConversationsStore(tx);
        const conversation = await store.askedForRating(channel.id, reply.externalChatId, now, CSAT_RECENT_MS);
        if (!conversation) return false;
        const message = await createMessagesStore(tx).insert({
          id: newId(),
          accountId: conversation.accountId,
          chatId: conversation.chatId,
          role: 'user',
          origin: 'customer',
          senderName: reply.senderName ?? reply.dialogName,
          text: reply.text.trim(),
          attachments: [],
          externalId: reply.externalId,
          csat: true,
          createdAt: now,
        });
        // A redelivery of the rating: already taken.
        if (!message) return true;
        await store.rate(conversation.chatId, conversation.id, rating, null, now);
        return true;
      });
    },
  };
}

export type MessengerCsat = ReturnType<typeof createMessengerCsat>;
