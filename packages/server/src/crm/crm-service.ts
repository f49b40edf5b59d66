// CRM connections (docs/architecture.md, CRM connections): connect (the token checked against the CRM first, then sealed),
// the channels a connection applies to, disconnect; and the sync. When a chat's task becomes done (any source:
// recordTaskStatus in chats-service.ts), `enqueue` marks its sync pending for each connection of the chat's channel
// and adds a `crm.sync` job in that same transaction. The job, outside any transaction, upserts the contact,
// creates or updates the deal and adds the transcript as a note; the ids are kept per chat and connection.
// The sync is in crm-sync.ts, spread here.
import type { CrmConnection, CrmConnectBody, CrmKind, CrmSync, CrmSyncFailure } from '@parley/contracts';
import { Errors } from '../errors.ts';
import { isUuid, newId } from '../lib/ids.ts';
import { redactSecrets } from '../lib/redact.ts';
import { CrmError, type CrmConnector } from './connectors/connector.ts';
import type { CrmConnectionRow, CrmLinkView } from './crm-store.ts';
import { createCrmSync, type CrmSyncDeps } from './crm-sync.ts';

export { CRM_SYNC_RETRY, TRANSCRIPT_MAX_MESSAGES, type CrmSyncPayload } from './crm-sync.ts';

/** The service's dependencies are the sync's (crm-sync.ts): it needs them all. */
export type CrmServiceDeps = CrmSyncDeps;

function syncView({ link, dialogName }: CrmLinkView): CrmSync {
  return {
    chatId: link.chatId,
    dialogName,
    status: link.status as CrmSync['status'],
    contactId: link.contactId,
    dealId: link.dealId,
    attempts: link.attempts,
    error: link.lastError,
    requestedAt: link.requestedAt.toISOString(),
    syncedAt: link.syncedAt?.toISOString() ?? null,
    updatedAt: link.updatedAt.toISOString(),
  };
}

export function createCrmService(deps: CrmServiceDeps) {
  const { db, clock, connectors, crmStore, channelsStore } = deps;
  const store = crmStore(db);

  async function view(connection: CrmConnectionRow): Promise<CrmConnection> {
    const [last, failedCount, failures] = await Promise.all([
      store.lastLink(connection.id),
      store.countFailed(connection.id),
      store.listFailures(connection.accountId, { connectionId: connection.id, limit: 5 }),
    ]);
    return {
      id: connection.id,
      kind: connection.kind as CrmKind,
      name: connection.name,
      companyDomain: connection.companyDomain,
      channelIds: connection.channelIds,
      tokenSet: true,
      createdAt: connection.createdAt.toISOString(),
      updatedAt: connection.updatedAt.toISOString(),
      lastSync: last ? syncView(last) : null,
      failedCount,
      recentFailures: failures.map(syncView),
    };
  }

  /** Every id must be a channel of the account (a connection never reaches into another account). */
  async function checkChannels(accountId: string, channelIds: readonly string[] | null | undefined): Promise<void> {
    for (const channelId of channelIds ?? []) {
      if (!(await channelsStore(db).find(accountId, channelId))) throw Errors.crmChannelNotFound(channelId);
    }
  }

  async function requireConnection(accountId: string, id: string): Promise<CrmConnectionRow> {
    const connection = isUuid(id) ? await store.findConnection(accountId, id) : undefined;
    if (!connection) throw Errors.crmConnectionNotFound();
    return connection;
  }

  return {
    async list(accountId: string): Promise<{ connections: CrmConnection[] }> {
      const connections = await store.listConnections(accountId);
      return { connections: await Promise.all(connections.map(view)) };
    },

    async connect(accountId: string, kind: CrmKind, body: CrmConnectBody): Promise<CrmConnection> {
      await checkChannels(accountId, body.channelIds);
      const companyDomain = 'companyDomain' in body ? body.companyDomain.toLowerCase() : null;
      let account: Awaited<ReturnType<CrmConnector['connect']>>;
      try {
        account = await connectors[kind].connect({ token: body.token, companyDomain });
      } catch (error) {
        if (!(error instanceof CrmError)) throw error;
        const description = redactSecrets(error.description, [body.token]);
        if (error.reason === 'unavailable') throw Errors.crmUnavailable(description);
        throw Errors.crmRefused(description);
      }
      const now = clock.now();
      const connection = await store.insertConnection({
        id: newId(),
        accountId,
        kind,
        name: account.name.slice(0, 200),
        companyDomain,
        token: body.token,
        settings: account.settings,
        channelIds: body.channelIds ?? null,
        createdAt: now,
        updatedAt: now,
      });
      return view(connection);
    },

    async setChannels(accountId: string, id: string, channelIds: string[] | null): Promise<CrmConnection> {
      await requireConnection(accountId, id);
      await checkChannels(accountId, channelIds);
      const updated = await store.setChannels(accountId, id, channelIds, clock.now());
      if (!updated) throw Errors.crmConnectionNotFound();
      return view(updated);
    },

    async remove(accountId: string, id: string): Promise<{ success: true }> {
      if (!isUuid(id) || !(await store.deleteConnection(accountId, id))) throw Errors.crmConnectionNotFound();
      return { success: true };
    },

    async listFailures(accountId: string, filter: { connectionId?: string; limit?: number }): Promise<{ failures: CrmSyncFailure[] }> {
      const rows = await store.listFailures(accountId, { connectionId: filter.connectionId, limit: filter.limit ?? 100 });
      return {
        failures: rows.map((row) => ({ ...syncView(row), connectionId: row.link.connectionId, kind: row.kind as CrmKind })),
      };
    },

    ...createCrmSync(deps),
  };
}

export type CrmService = ReturnType<typeof createCrmService>;
