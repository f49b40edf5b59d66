// The new_messages event of a stored message, written in the transaction that stored it (customer messages,
// agent replies, auto-replies and team replies alike).
import { settingsOf, type ChatsServiceDeps } from '../chats/chats-service.ts';
import type { ChatRow } from '../chats/chats-store.ts';
import type { Executor } from '../db/client.ts';
import { recordEvent } from '../events/outbox.ts';
import { newMessagesEvent, webhookChat, webhookMessage } from '../webhooks/payloads.ts';
import type { MessageRow } from './messages-store.ts';

export async function recordNewMessage(
  tx: Executor,
  channelsStore: ChatsServiceDeps['channelsStore'],
  chat: ChatRow,
  message: MessageRow,
  at: Date,
): Promise<void> {
  const payload = newMessagesEvent({
    chat: webhookChat(chat),
    messages: [webhookMessage(message)],
    settings: await settingsOf(tx, channelsStore, chat),
    timestamp: at,
  });
  await recordEvent(tx, { accountId: chat.accountId, channelId: chat.channelId, chatId: chat.id, payload });
}
