// Replies to messenger chats (docs/architecture.md, Messenger connectors → outbound): every agent, auto and team reply to a
// messenger chat gets a `messenger_sends` row and a `messenger.send` job in the reply's own transaction. The job
// sends the text in parts of the messenger's limit (the parts already sent are kept, so a retry never repeats
// them); 429 waits the messenger's `retry_after`, outages back off; a refusal (blocked bot, closed 24-hour window)
// or the last failed try ends it as failed, listed in the console and shown as the channel's last error.
import { isMessengerKind, type MessengerKind, type MessengerSendFailure } from '@parley/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { ChatsStore } from '../chats/chats-store.ts';
import type { Database, Executor } from '../db/client.ts';
import { RetryJobLater, type JobQueue, type JobRun, type RetryPolicy } from '../jobs/job-queue.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { redactSecrets } from '../lib/redact.ts';
import type { MessagesStore } from '../messages/messages-store.ts';
import type { ChannelRow, ChannelsStore } from '../channels/channels-store.ts';
import { MessengerError, splitText, type Connector } from '../channels/connectors/connector.ts';
import type { CustomerDelivery } from '../messages/customer-delivery.ts';
import type { MessengerSendsStore } from './messenger-sends-store.ts';

/** A CSAT question's quick replies: each sends its own number. */
const RATING_CHOICES = ['1', '2', '3', '4', '5'] as const;

/** Ten tries over about ten minutes (1 s, 2 s, 4 s … capped at 5 min), then the reply is listed as failed. */
export const MESSENGER_SEND_RETRY: RetryPolicy = {
  maxAttempts: 10,
  backoffMs: (attempt) => Math.min(1000 * 2 ** (attempt - 1), 5 * 60_000),
};

export interface MessengerOutboundDeps {
  db: Database;
  clock: Clock;
  logger: FastifyBaseLogger;
  queue: Pick<JobQueue, 'enqueue' | 'wake'>;
  connectors: Record<MessengerKind, Connector>;
  sendsStore: (executor: Executor) => MessengerSendsStore;
  channelsStore: (executor: Executor) => Pick<ChannelsStore, 'find' | 'setConnectorError'>;
  messagesStore: (executor: Executor) => Pick<MessagesStore, 'find'>;
  chatsStore: (executor: Executor) => Pick<ChatsStore, 'find'>;
}

export function createMessengerOutbound(deps: MessengerOutboundDeps): CustomerDelivery & {
  send(payload: { sendId: string }, run: JobRun): Promise<void>;
  listFailures(accountId: string, filter: { channelId?: string; limit?: number }): Promise<{ failures: MessengerSendFailure[] }>;
} {
  const { db, clock, logger, queue, connectors, sendsStore, channelsStore, messagesStore, chatsStore } = deps;

  async function fail(sendId: string, channel: ChannelRow, externalChatId: string, reason: string): Promise<void> {
    const now = clock.now();
    // What a messenger or the network said, never with the channel's own credentials in it.
    const error = redactSecrets(reason, Object.values(channel.credentials ?? {}));
    logger.warn({ sendId, channelId: channel.id, kind: channel.kind, error }, 'reply to a messenger chat failed for good');
    await sendsStore(db).finish(sendId, { status: 'failed', error }, now);
    await channelsStore(db).setConnectorError(channel.id, `Reply to chat ${externalChatId} not sent: ${error}`, now);
  }

  return {
    async enqueue(tx, chat, message) {
      if (!isMessengerKind(chat.channelKind) || message.text.length === 0) return;
      const sendId = newId();
      await sendsStore(tx).insert({
        id: sendId,
        accountId: chat.accountId,
        channelId: chat.channelId,
        chatId: chat.id,
        messageId: message.id,
        createdAt: clock.now(),
      });
      await queue.enqueue(tx, 'messenger.send', { sendId });
    },

    wake: () => queue.wake(),

    async send({ sendId }, run) {
      const send = await sendsStore(db).find(sendId);
      if (!send || send.status !== 'pending') return;
      const [message, chat, channel] = await Promise.all([
        messagesStore(db).find(send.accountId, send.messageId),
        chatsStore(db).find(send.accountId, send.chatId),
        channelsStore(db).find(send.accountId, send.channelId),
      ]);
      if (!message || !chat || !channel) return; // deleted since: the row went with it
      if (!isMessengerKind(channel.kind) || !channel.credentials) {
        return fail(sendId, channel, chat.externalChatId, 'the channel has no messenger credentials');
      }
      const connector = connectors[channel.kind];
      const credentials = channel.credentials;
      const parts = splitText(message.text, connector.textLimit);
      await sendsStore(db).countAttempt(sendId);
      try {
        for (let index = send.partsSent; index < parts.length; index++) {
          const last = index === parts.length - 1;
          // Clarifying choices, or a CSAT question's 1–5 (conversations/csat-messenger.ts), on the last part.
          const choices = !last
            ? undefined
            : message.csat
              ? { choices: RATING_CHOICES, choicesKind: 'rating' as const }
              : message.choices
                ? { choices: [...message.choices.options.map((option) => option.label), message.choices.other] }
                : undefined;
          await connector.sendText(credentials, chat.externalChatId, parts[index] as string, { channelName: channel.name, ...choices });
          await sendsStore(db).setPartsSent(sendId, index + 1);
        }
        await sendsStore(db).finish(sendId, { status: 'sent' }, clock.now());
      } catch (error) {
        if (!(error instanceof MessengerError)) {
          if (run.lastAttempt) return fail(sendId, channel, chat.externalChatId, (error as Error).message);
          throw error;
        }
        if (error.reason === 'refused' || run.lastAttempt) return fail(sendId, channel, chat.externalChatId, error.description);
        await sendsStore(db).noteError(sendId, error.description);
        if (error.reason === 'rateLimited') throw new RetryJobLater(error.retryAfterMs ?? 1000, error.description);
        throw error;
      }
    },

    async listFailures(accountId, filter) {
      const rows = await sendsStore(db).listFailures(accountId, { channelId: filter.channelId, limit: filter.limit ?? 100 });
      return {
        failures: rows.map(({ send, channelKind }) => ({
          id: send.id,
          channelId: send.channelId,
          channelType: channelKind as MessengerKind,
          chatId: send.chatId,
          messageId: send.messageId,
          error: send.lastError ?? '',
          attempts: send.attempts,
          partsSent: send.partsSent,
          createdAt: send.createdAt.toISOString(),
          failedAt: (send.finishedAt ?? send.createdAt).toISOString(),
        })),
      };
    },
  };
}

export type MessengerOutbound = ReturnType<typeof createMessengerOutbound>;
