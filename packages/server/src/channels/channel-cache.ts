// Channels in memory: every customer message, agent reply and webhook payload needs its channel, which changes
// only when the owner edits it. A change made here is forgotten at once; other processes hear of it through a
// NOTIFY sent with the change (delivered at its commit); the TTL is the safety net for a NOTIFY missed.
import { sql } from 'drizzle-orm';
import { LruMap } from 'toad-cache';
import type { Executor } from '../db/client.ts';
import { CACHE_CHANNEL } from '../kernel/kernel.ts';
import type { ChannelRow, ChannelsStore } from './channels-store.ts';

/** What the features that read channels take (made once per app by the composition root, core.ts). */
export interface ChannelStores {
  /** The channels store over an executor (the database, or a transaction), reads cached per process. */
  channelsStoreOf(executor: Executor): ChannelsStore;
}

export interface ChannelCache {
  get(id: string, load: () => Promise<ChannelRow | undefined>): Promise<ChannelRow | undefined>;
  forget(id: string): void;
  clear(): void;
}

export function createChannelCache({ ttlMs, max = 10_000 }: { ttlMs: number; max?: number }): ChannelCache {
  const rows = new LruMap<ChannelRow>(max, ttlMs);
  // A load that began before a change must not put the old row back: loads keep their result only when no change
  // was heard since they began.
  let changes = 0;
  return {
    async get(id, load) {
      const cached = rows.get(id);
      if (cached) return cached;
      const before = changes;
      const row = await load();
      if (row && changes === before) rows.set(id, row);
      return row;
    },
    forget(id) {
      changes += 1;
      rows.delete(id);
    },
    clear() {
      changes += 1;
      rows.clear();
    },
  };
}

/** Tells every process (this one too) that a channel changed, at the commit of `executor`'s transaction. */
export async function announceChannelChange(executor: Executor, id: string): Promise<void> {
  await executor.execute(sql`SELECT pg_notify(${CACHE_CHANNEL}, ${`channel:${id}`})`);
}

/** The store with its lookups by id served from `cache`, and every write forgetting and announcing the channel. */
export function cachedChannelsStore(store: ChannelsStore, executor: Executor, cache: ChannelCache): ChannelsStore {
  const changed = async (id: string): Promise<void> => {
    cache.forget(id);
    await announceChannelChange(executor, id);
  };
  return {
    ...store,
    find: async (accountId, id) => {
      const row = await cache.get(id, () => store.findForInbound(id));
      return row?.accountId === accountId ? row : undefined;
    },
    findForInbound: (id) => cache.get(id, () => store.findForInbound(id)),
    async insert(row) {
      const created = await store.insert(row);
      await changed(created.id);
      return created;
    },
    async update(accountId, id, changes) {
      const row = await store.update(accountId, id, changes);
      if (row) await changed(id);
      return row;
    },
    async delete(accountId, id) {
      const deleted = await store.delete(accountId, id);
      if (deleted) await changed(id);
      return deleted;
    },
    async setConnectorError(id, message, at) {
      await store.setConnectorError(id, message, at);
      await changed(id);
    },
    async sealStoredSecrets() {
      const sealed = await store.sealStoredSecrets();
      if (sealed > 0) cache.clear();
      return sealed;
    },
  };
}
