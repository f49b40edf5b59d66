// SQL of chats.
import { and, asc, count, eq, exists, inArray, ne, sql, type Column, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../db/client.ts';
import { channels, chatCounts, chats, chatTags, tags } from '../db/schema.ts';

export interface ChatListFilter {
  accountId: string;
  channelKind?: string;
  channelId?: string;
  taskDone?: boolean;
  /** Console only: chats with unread messages or flagged unread (a partial index of their own, migration 0009). */
  unread?: boolean;
  /**
   * Tags (ids found in the account) every listed chat has. The first one's chats are read newest first from its
   * index and the others checked per chat, so the rarest should come first.
   */
  tagIds?: readonly string[];
}

export interface ChatListPage {
  limit: number;
  offset: number;
}

/** A tag of the account found by name, with the number of its chats (`tags.chat_count`). */
export interface TagCount {
  id: string;
  name: string;
  chatCount: number;
}

const otherTag = alias(chatTags, 'other_tag');

/** The filters that are columns of chats (everything but tags). */
function chatConditions(filter: ChatListFilter): SQL {
  return and(
    eq(chats.accountId, filter.accountId),
    filter.channelKind === undefined ? undefined : eq(chats.channelKind, filter.channelKind),
    filter.channelId === undefined ? undefined : eq(chats.channelId, filter.channelId),
    filter.taskDone === undefined ? undefined : eq(chats.taskDone, filter.taskDone),
    filter.unread ? UNREAD : undefined,
  ) as SQL;
}

/** The predicate of chats_account_unread_activity_idx, written the same way so the planner can use it. */
const UNREAD = sql`(${chats.unreadCount} > 0 or ${chats.customUnread})`;

function hasChatFilters(filter: ChatListFilter): boolean {
  return filter.channelKind !== undefined || filter.channelId !== undefined || filter.taskDone !== undefined || filter.unread === true;
}

/** The chat has each of these tags besides the one being read (a probe of the primary key per tag). */
function hasOtherTags(db: Executor, tagIds: readonly string[]): SQL[] {
  return tagIds.map((tagId) =>
    exists(
      db
        .select({ one: sql`1` })
        .from(otherTag)
        .where(and(eq(otherTag.chatId, chatTags.chatId), eq(otherTag.tagId, tagId))),
    ),
  );
}

// `desc nulls last` is how the activity indexes are built; a plain `desc` (nulls first) could not be read from
// them (the columns are NOT NULL, so the order is the same).
const newestFirst = (at: Column, id: Column) => [sql`${at} desc nulls last`, sql`${id} desc nulls last`];

/**
 * The ids of one page, read from an index that holds them in list order (test/chat-list-plans.test.ts):
 * without tags one of chats' activity indexes; with tags the first tag's `chat_tags_tag_activity_idx`, joined to
 * chats only when chat columns are filtered too.
 */
function pageIds(db: Executor, filter: ChatListFilter, page: ChatListPage) {
  const [firstTag, ...otherTags] = filter.tagIds ?? [];
  if (firstTag === undefined) {
    return db
      .select({ id: chats.id, at: chats.lastMessageAt })
      .from(chats)
      .where(chatConditions(filter))
      .orderBy(...newestFirst(chats.lastMessageAt, chats.id))
      .limit(page.limit)
      .offset(page.offset)
      .as('page');
  }
  const tagged = and(eq(chatTags.tagId, firstTag), ...hasOtherTags(db, otherTags));
  const ofTag = db.select({ id: chatTags.chatId, at: chatTags.lastMessageAt }).from(chatTags);
  // Tags belong to the account and only its chats are tagged, so chats is joined only for its own filters.
  const filtered = hasChatFilters(filter)
    ? ofTag.innerJoin(chats, and(eq(chats.id, chatTags.chatId), chatConditions(filter))).where(tagged)
    : ofTag.where(tagged);
  return filtered
    .orderBy(...newestFirst(chatTags.lastMessageAt, chatTags.chatId))
    .limit(page.limit)
    .offset(page.offset)
    .as('page');
}

export function createChatsStore(db: Executor) {
  /** The query of one page of the chat list, with each chat's channel name. */
  function listQuery(filter: ChatListFilter, page: ChatListPage) {
    const ids = pageIds(db, filter, page);
    // Only the page's rows are fetched and joined: rows skipped by the offset are never read from the table.
    return db
      .select({ chat: chats, channelName: channels.name })
      .from(ids)
      .innerJoin(chats, and(eq(chats.id, ids.id), eq(chats.accountId, filter.accountId)))
      .innerJoin(channels, eq(channels.id, chats.channelId))
      .orderBy(...newestFirst(ids.at, ids.id));
  }

  /** Chats matching filters without tags, summed from chat_counts (a few rows per account). */
  function countedQuery(filter: Omit<ChatListFilter, 'tagIds'>) {
    const column =
      filter.taskDone === undefined
        ? chatCounts.chats
        : filter.taskDone
          ? chatCounts.doneChats
          : sql`${chatCounts.chats} - ${chatCounts.doneChats}`;
    return db
      .select({ value: sql<number>`coalesce(sum(${column}), 0)::int`.mapWith(Number) })
      .from(chatCounts)
      .where(
        and(
          eq(chatCounts.accountId, filter.accountId),
          filter.channelKind === undefined ? undefined : eq(chatCounts.channelKind, filter.channelKind),
          filter.channelId === undefined ? undefined : eq(chatCounts.channelId, filter.channelId),
        ),
      );
  }

  /** Chats matching tags and chat filters together, counted one by one from the first tag's chats. */
  function countMatchingQuery(filter: ChatListFilter) {
    const [firstTag, ...otherTags] = filter.tagIds ?? [];
    return db
      .select({ value: count() })
      .from(chatTags)
      .innerJoin(chats, and(eq(chats.id, chatTags.chatId), chatConditions(filter)))
      .where(and(firstTag === undefined ? sql`false` : eq(chatTags.tagId, firstTag), ...hasOtherTags(db, otherTags)));
  }

  return {
    listQuery,
    countedQuery,
    countMatchingQuery,

    async list(filter: ChatListFilter, page: ChatListPage) {
      return listQuery(filter, page);
    },

    async countFromCounters(filter: Omit<ChatListFilter, 'tagIds'>): Promise<number> {
      const [row] = await countedQuery(filter);
      return row?.value ?? 0;
    },

    /** Unread chats matching the filters without tags, counted from the partial unread index. */
    async countUnread(filter: ChatListFilter): Promise<number> {
      const [row] = await db.select({ value: count() }).from(chats).where(chatConditions({ ...filter, unread: true }));
      return row?.value ?? 0;
    },

    async countMatching(filter: ChatListFilter): Promise<number> {
      const [row] = await countMatchingQuery(filter);
      return row?.value ?? 0;
    },

    /** The tags of these chats, by name: one query for a whole page rather than one per chat. */
    async tagsOf(chatIds: readonly string[]): Promise<{ chatId: string; id: string; name: string }[]> {
      if (chatIds.length === 0) return [];
      return db
        .select({ chatId: chatTags.chatId, id: tags.id, name: tags.name })
        .from(chatTags)
        .innerJoin(tags, eq(tags.id, chatTags.tagId))
        // One array parameter rather than one parameter per chat (cheaper to build and to parse for a full page).
        .where(sql`${chatTags.chatId} = any(${sql.param([...chatIds])}::uuid[])`)
        .orderBy(asc(tags.name), asc(tags.id));
    },

    /** The account's tags of these names (missing names are simply absent). */
    async findTags(accountId: string, names: readonly string[]): Promise<TagCount[]> {
      if (names.length === 0) return [];
      return db
        .select({ id: tags.id, name: tags.name, chatCount: tags.chatCount })
        .from(tags)
        .where(and(eq(tags.accountId, accountId), inArray(tags.name, [...names])));
    },

    async find(accountId: string, chatId: string): Promise<ChatRow | undefined> {
      const [row] = await db.select().from(chats).where(and(eq(chats.accountId, accountId), eq(chats.id, chatId)));
      return row;
    },

    async findByUniqueId(accountId: string, uniqueId: string): Promise<ChatRow | undefined> {
      const [row] = await db.select().from(chats).where(and(eq(chats.accountId, accountId), eq(chats.uniqueId, uniqueId)));
      return row;
    },

    /** Applies a change to one chat of the account; undefined when there is no such chat (or `onlyIf` fails). */
    async update(accountId: string, chatId: string, changes: Partial<ChatRow>, onlyIf?: SQL): Promise<ChatRow | undefined> {
      const [row] = await db
        .update(chats)
        .set(changes)
        .where(and(eq(chats.accountId, accountId), eq(chats.id, chatId), onlyIf))
        .returning();
      return row;
    },

    /** Sets the task status only when it differs, so concurrent identical commands change it (and emit) once. */
    /** The chat, its row locked until the transaction ends (a change that must read the time after the lock). */
    async lockForUpdate(accountId: string, chatId: string): Promise<ChatRow | undefined> {
      const [row] = await db
        .select()
        .from(chats)
        .where(and(eq(chats.accountId, accountId), eq(chats.id, chatId)))
        .for('update');
      return row;
    },

    async setTaskDone(accountId: string, chatId: string, done: boolean, now: Date): Promise<ChatRow | undefined> {
      const [row] = await db
        .update(chats)
        .set({ taskDone: done, updatedAt: now })
        .where(and(eq(chats.accountId, accountId), eq(chats.id, chatId), ne(chats.taskDone, done)))
        .returning();
      return row;
    },

    /** Bans or unbans by chat key, only when the state differs. */
    async setBanned(accountId: string, uniqueId: string, banned: boolean, now: Date): Promise<ChatRow | undefined> {
      const [row] = await db
        .update(chats)
        .set({ banned, updatedAt: now })
        .where(and(eq(chats.accountId, accountId), eq(chats.uniqueId, uniqueId), ne(chats.banned, banned)))
        .returning();
      return row;
    },
  };
}

export type ChatsStore = ReturnType<typeof createChatsStore>;
export type ChatRow = typeof chats.$inferSelect;
