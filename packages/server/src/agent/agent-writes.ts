// The writes of the agent (agent-service.ts): a reply with its events in one transaction (one statement when it
// fires no task trigger), the off-hours auto-reply, and the record of an engine's failure.
import { recordTaskStatus, settingsOf } from '../chats/chats-service.ts';
import type { ChatRow } from '../chats/chats-store.ts';
import { DEFAULT_SETTINGS } from '../channels/channels-service.ts';
import type { ChannelRow } from '../channels/channels-store.ts';
import { NO_CUSTOMER_DELIVERY } from '../channels/customer-delivery.ts';
import type { Executor } from '../db/client.ts';
import { recordEvent } from '../events/outbox.ts';
import { newId } from '../lib/ids.ts';
import { recordNewMessage } from '../messages/message-events.ts';
import type { MessageRow } from '../messages/messages-store.ts';
import { webhookChat, webhookMessage } from '../webhooks/payloads.ts';
import type { AgentServiceDeps } from './agent-service.ts';
import type { AgentAnswer } from './engine.ts';
import { isMessengerKind } from '@parley/contracts';

export type AgentWritesDeps = Pick<
  AgentServiceDeps,
  'db' | 'clock' | 'logger' | 'agentStore' | 'replyStore' | 'messagesStore' | 'chatsStore' | 'channelsStore' | 'customerDelivery' | 'crmSync'
>;

export function createAgentWrites(deps: AgentWritesDeps) {
  const { db, clock, logger, agentStore, replyStore, messagesStore, chatsStore, channelsStore } = deps;
  const customerDelivery = deps.customerDelivery ?? NO_CUSTOMER_DELIVERY;

  /** The off-hours auto-reply, delivered to the customer like any reply (not an agent reply: it cannot be rated). */
  async function sendAutoReply(tx: Executor, channel: ChannelRow, chat: ChatRow, at: Date): Promise<void> {
    const text = channel.autoReply ?? '';
    const message = await messagesStore(tx).insert({
      id: newId(),
      accountId: chat.accountId,
      chatId: chat.id,
      role: 'assistant',
      origin: 'auto',
      senderName: null,
      text,
      createdAt: at,
    });
    if (!message) throw new Error('auto-reply was not stored');
    const touched = await messagesStore(tx).touchChat(chat.id, { text, at, unread: false });
    await agentStore(tx).markAutoReplied(chat.id, at);
    await recordNewMessage(tx, channelsStore, touched, message, at);
    await customerDelivery.enqueue(tx, touched, message);
  }

  /** Records the engine's failure and leaves the chat to the team (the messages stop waiting). */
  async function giveUp(chat: ChatRow, waiting: MessageRow[], error: Error): Promise<void> {
    logger.warn({ chatId: chat.id, channelId: chat.channelId, err: error.message }, 'agent reply failed; the chat is left for the team');
    await db.transaction(async (tx) => {
      await agentStore(tx).settle(waiting.map((message) => message.id));
      await agentStore(tx).insertFailure({
        id: newId(),
        accountId: chat.accountId,
        channelId: chat.channelId,
        chatId: chat.id,
        error: error.message.slice(0, 2000),
        createdAt: clock.now(),
      });
    });
  }

  /** A reply without a task trigger, in one statement (reply-store.ts). Whether it was stored. */
  async function writeReply(channel: ChannelRow, chat: ChatRow, waiting: MessageRow[], text: string, fallback: boolean): Promise<boolean> {
    const at = clock.now();
    const messageId = newId();
    const toCustomer = isMessengerKind(chat.channelKind) && text.length > 0;
    const written = await replyStore.write({
      accountId: chat.accountId,
      chatId: chat.id,
      waitingIds: waiting.map((message) => message.id),
      messageId,
      text,
      fallback,
      at,
      webhookMessage: webhookMessage({ id: messageId, role: 'assistant', senderName: null, text, attachments: [], createdAt: at }),
      settings: { ...DEFAULT_SETTINGS, ...channel.settings },
      eventId: newId(),
      deliveryId: newId(),
      send: toCustomer ? { id: newId(), jobId: newId() } : null,
    });
    return written !== undefined;
  }

  /** A reply that fires the task trigger (or no reply at all): one transaction of several statements. */
  async function writeReplyStepByStep(accountId: string, chatId: string, waiting: MessageRow[], answer: AgentAnswer): Promise<boolean> {
    return db.transaction(async (tx) => {
      const settled = await agentStore(tx).settle(waiting.map((message) => message.id));
      if (settled.length === 0) return false; // another run answered them
      // Locked before the time is read: the reply, the trigger and a status change share a time in commit order.
      const current = await chatsStore(tx).lockForUpdate(accountId, chatId);
      // Paused or banned while the engine was thinking: the reply is dropped.
      if (!current || current.paused || current.banned) return false;
      const now = clock.now();
      let latest = current;
      if (answer.text !== null) {
        const message = await messagesStore(tx).insert({
          id: newId(),
          accountId,
          chatId,
          role: 'assistant',
          origin: 'agent',
          senderName: null,
          text: answer.text,
          fallback: answer.fallback ?? false,
          createdAt: now,
        });
        if (!message) throw new Error('agent reply was not stored');
        latest = await messagesStore(tx).touchChat(chatId, { text: answer.text, at: now, unread: false });
        await recordNewMessage(tx, channelsStore, latest, message, now);
        await customerDelivery.enqueue(tx, latest, message);
      }
      if (answer.taskComplete) {
        const last = waiting.at(-1) as MessageRow;
        await recordEvent(tx, {
          accountId,
          channelId: latest.channelId,
          chatId,
          payload: {
            event: 'task_trigger',
            chat: webhookChat(latest),
            message: webhookMessage(last),
            summary: answer.taskComplete.summary,
            settings: await settingsOf(tx, channelsStore, latest),
            timestamp: now.toISOString(),
          },
        });
        await recordTaskStatus(
          tx,
          { chatsStore, channelsStore, crmSync: deps.crmSync },
          { accountId, chatId, done: true, source: { type: 'trigger', operatorEmail: null }, at: () => now },
        );
      }
      return true;
    });
  }

  return { sendAutoReply, giveUp, writeReply, writeReplyStepByStep };
}

export type AgentWrites = ReturnType<typeof createAgentWrites>;
