// The CRM sync (part of the CRM service, crm-service.ts, which spreads it in): when a chat's task becomes done,
// `enqueue` marks its sync pending for each connection of the chat's channel and adds a `crm.sync` job in that same
// transaction; the job, outside any transaction, upserts the contact, creates or updates the deal and adds the
// transcript as a note, keeping the ids per chat and connection as soon as the CRM gives them.
import type { CrmKind } from '@parley/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { ChannelsStore } from '../channels/channels-store.ts';
import type { ChatRow, ChatsStore } from '../chats/chats-store.ts';
import type { Database, Executor } from '../db/client.ts';
import { RetryJobLater, type JobQueue, type JobRun, type RetryPolicy } from '../jobs/job-queue.ts';
import type { Clock } from '../lib/clock.ts';
import type { MessagesStore } from '../messages/messages-store.ts';
import { redactSecrets } from '../lib/redact.ts';
import { CrmError, type CrmConnector, type CrmCredentials } from './connectors/connector.ts';
import type { CrmConnectionRow, CrmStore } from './crm-store.ts';
import { transcriptHtml } from './transcript.ts';

/** Eight tries over about four minutes (1 s, 2 s, 4 s … capped at 2 min); a 429 waits what the CRM says. */
export const CRM_SYNC_RETRY: RetryPolicy = {
  maxAttempts: 8,
  backoffMs: (attempt) => Math.min(1000 * 2 ** (attempt - 1), 2 * 60_000),
};

/** Messages of a chat that go into its note (the most recent ones). */
export const TRANSCRIPT_MAX_MESSAGES = 500;

export interface CrmSyncPayload {
  accountId: string;
  connectionId: string;
  chatId: string;
}

const credentialsOf = (connection: CrmConnectionRow): CrmCredentials => ({
  token: connection.token,
  companyDomain: connection.companyDomain,
  settings: connection.settings,
});

export interface CrmSyncDeps {
  db: Database;
  clock: Clock;
  logger: FastifyBaseLogger;
  queue: Pick<JobQueue, 'enqueue' | 'wake'>;
  connectors: Record<CrmKind, CrmConnector>;
  crmStore: (executor: Executor) => CrmStore;
  channelsStore: (executor: Executor) => Pick<ChannelsStore, 'find'>;
  chatsStore: (executor: Executor) => Pick<ChatsStore, 'find'>;
  messagesStore: (executor: Executor) => Pick<MessagesStore, 'listRecent'>;
}

export function createCrmSync(deps: CrmSyncDeps) {
  const { db, clock, logger, queue, connectors, crmStore, channelsStore, chatsStore, messagesStore } = deps;
  const store = crmStore(db);

  /** The sync ended badly for good: recorded (listed in the console), never with the token in it. */
  async function fail(connection: CrmConnectionRow, chatId: string, requestedAt: Date, error: string): Promise<void> {
    logger.warn({ connectionId: connection.id, kind: connection.kind, chatId, error }, 'CRM sync failed for good');
    await store.finish(connection.id, chatId, requestedAt, { status: 'failed', error }, clock.now());
  }

  return {
    /** In the transaction where the chat's task became done: one pending sync and one job per connection. */
    async enqueue(tx: Executor, chat: ChatRow): Promise<void> {
      const inTx = crmStore(tx);
      const connections = await inTx.connectionsForChannel(chat.accountId, chat.channelId);
      const at = clock.now();
      for (const { id: connectionId } of connections) {
        await inTx.requestSync({ connectionId, chatId: chat.id, accountId: chat.accountId, at });
        // Keyed: one sync of a chat to a connection at a time; a completion while it runs makes it run again.
        await queue.enqueue(tx, 'crm.sync', { accountId: chat.accountId, connectionId, chatId: chat.id }, { key: `crm.sync:${connectionId}:${chat.id}` });
      }
    },

    /** The `crm.sync` job: contact, deal, note; ids kept as soon as the CRM gives them. */
    async sync({ accountId, connectionId, chatId }: CrmSyncPayload, run: JobRun): Promise<void> {
      const connection = await store.findConnection(accountId, connectionId);
      if (!connection) return; // disconnected since
      const link = await store.findLink(connectionId, chatId);
      if (!link || link.status !== 'pending') return;
      const chat = await chatsStore(db).find(accountId, chatId);
      if (!chat) return;
      const connector = connectors[connection.kind as CrmKind];
      const credentials = credentialsOf(connection);
      await store.countAttempt(connectionId, chatId);
      try {
        const contactId =
          link.contactId ?? (await connector.upsertContact(credentials, { name: chat.dialogName, email: chat.email, chatKey: chat.uniqueId }));
        if (link.contactId === null) await store.setIds(connectionId, chatId, { contactId });
        const channel = await channelsStore(db).find(accountId, chat.channelId);
        const channelName = channel?.name ?? chat.channelKind;
        const dealId = await connector.upsertDeal(credentials, {
          title: `${chat.dialogName} (${channelName})`.slice(0, 255),
          contactId,
          dealId: link.dealId,
        });
        if (dealId !== link.dealId) await store.setIds(connectionId, chatId, { dealId });
        const messages = await messagesStore(db).listRecent(accountId, chatId, TRANSCRIPT_MAX_MESSAGES + 1);
        const truncated = messages.length > TRANSCRIPT_MAX_MESSAGES;
        const body = transcriptHtml(
          { dialogName: chat.dialogName, uniqueId: chat.uniqueId, channelName },
          truncated ? messages.slice(1) : messages,
          truncated,
        );
        await connector.addNote(credentials, { body, at: clock.now(), contactId, dealId });
        await store.finish(connectionId, chatId, link.requestedAt, { status: 'synced' }, clock.now());
      } catch (error) {
        const crmError = error instanceof CrmError ? error : undefined;
        // What the CRM or the network said, never with the token in it (it goes to the log and the jobs table too).
        const description = redactSecrets(crmError?.description ?? (error as Error).message, [connection.token]);
        if (crmError?.reason === 'refused' || run.lastAttempt) return fail(connection, chatId, link.requestedAt, description);
        await store.noteError(connectionId, chatId, description, clock.now());
        if (crmError?.reason === 'rateLimited') throw new RetryJobLater(crmError.retryAfterMs ?? 1000, description);
        throw new CrmError(crmError?.reason ?? 'unavailable', description);
      }
    },
  };
}
