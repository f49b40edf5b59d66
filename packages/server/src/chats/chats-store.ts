// SQL of chats.
import { and, asc, eq, ne, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { preparedRows, type PreparedQuery } from '../db/prepared.ts';
import { chats, chatTags, members, tags } from '../db/schema.ts';

export interface ChatListFilter {
  accountId: string;
  channelKind?: string;
  channelId?: string;
  taskDone?: boolean;
  /** Console only: chats with unread messages or flagged unread (a partial index of their own, migration 0009). */
  unread?: boolean;
  /** Console only: chats assigned to this member, or (null) to nobody. */
  assigneeId?: string | null;
  /** Console only: each listed chat with its assignee (`{ id, name }` or null) and `needs_human`. */
  withAssignee?: boolean;
  /** Console only: chats the agent handed to the team (a partial index of their own, migration 0021). */
  needsHuman?: boolean;
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

/** A chat of a list page with its channel's name and its tags, as the list's one statement returns it. */
export interface ChatListRow {
  id: string;
  unique_id: string;
  channel_kind: string;
  channel_id: string;
  external_chat_id: string;
  dialog_name: string;
  last_text: string;
  last_message_at: Date;
  unread_count: number;
  custom_unread: boolean;
  task_done: boolean;
  paused: boolean;
  is_group: boolean;
  email: string | null;
  photo_url: string | null;
  created_at: Date;
  updated_at: Date;
  channel_name: string | null;
  /** The chat's tags by name, then id, already in the list's `userTags` form. */
  user_tags: { tags: { id: string; name: string } }[];
  /** With `withAssignee` only. */
  assignee?: { id: string; name: string } | null;
  /** With `withAssignee` only. */
  needs_human?: boolean;
}

/**
 * Which filters a list query has: the SQL text depends on this only (one fixed text per shape, so PostgreSQL parses
 * and plans a named statement once per connection). `taskDone` is part of the text rather than a parameter so that
 * the planner may use the partial index of done chats in a generic plan too.
 */
function shapeOf(filter: ChatListFilter): string {
  const tagCount = filter.tagIds?.length ?? 0;
  return [
    tagCount === 0 ? 'all' : `tags${tagCount}`,
    filter.channelKind === undefined ? '' : 'kind',
    filter.channelId === undefined ? '' : 'channel',
    filter.taskDone === undefined ? '' : filter.taskDone ? 'done' : 'open',
    filter.unread ? 'unread' : '',
    filter.needsHuman ? 'human' : '',
    filter.assigneeId === undefined ? '' : filter.assigneeId === null ? 'unassigned' : 'assigned',
    filter.withAssignee ? 'assignee' : '',
  ].join('_');
}

/**
 * The parameters of a shape's statements in order ($1 the account, then the filters present) and the conditions on
 * chats (alias `f`) they number.
 */
function chatFilterSql(filter: ChatListFilter, values: unknown[]): string {
  const conditions = ['f.account_id = $1'];
  const param = (value: unknown): string => `$${values.push(value)}`;
  if (filter.channelKind !== undefined) conditions.push(`f.channel_kind = ${param(filter.channelKind)}`);
  if (filter.channelId !== undefined) conditions.push(`f.channel_id = ${param(filter.channelId)}`);
  if (filter.taskDone !== undefined) conditions.push(filter.taskDone ? 'f.task_done' : 'NOT f.task_done');
  // The predicate of chats_account_unread_activity_idx (migration 0009), written the same way.
  if (filter.unread) conditions.push('(f.unread_count > 0 OR f.custom_unread)');
  // The predicate of chats_account_needs_human_activity_idx (migration 0021).
  if (filter.needsHuman) conditions.push('f.needs_human');
  // A member's chats come from chats_account_assignee_activity_idx; unassigned ones from the activity index.
  if (filter.assigneeId === null) conditions.push('f.assignee_id IS NULL');
  else if (filter.assigneeId !== undefined) conditions.push(`f.assignee_id = ${param(filter.assigneeId)}`);
  return conditions.join(' AND ');
}

function hasChatFilters(filter: ChatListFilter): boolean {
  return (
    filter.channelKind !== undefined ||
    filter.channelId !== undefined ||
    filter.taskDone !== undefined ||
    filter.unread === true ||
    filter.needsHuman === true ||
    filter.assigneeId !== undefined
  );
}

/**
 * Chats having the first tag (`ct`, read from chat_tags_tag_activity_idx) and every other one, joined to chats only when chat columns are filtered too (tags belong to the account and
 * only its chats are tagged).
 */
function taggedSql(filter: ChatListFilter, values: unknown[]): string {
  const [firstTag, ...otherTags] = filter.tagIds ?? [];
  const join = hasChatFilters(filter) ? ` JOIN chats f ON f.id = ct.chat_id AND ${chatFilterSql(filter, values)}` : '';
  let where = `ct.tag_id = $${values.push(firstTag)}`;
  // One probe of the primary key per chat and other tag. (Forms taking all the other tags in one array parameter
  // were planned worse: a hashed subplan reading all of chat_tags, or a row estimate so low that JIT kicked in.)
  for (const otherTag of otherTags) {
    where += ` AND EXISTS (SELECT FROM chat_tags x WHERE x.tag_id = $${values.push(otherTag)} AND x.chat_id = ct.chat_id)`;
  }
  return `FROM chat_tags ct${join} WHERE ${where}`;
}

// `DESC NULLS LAST` is how the activity indexes are built; a plain `DESC` (nulls first) could not be read from them
// (the columns are NOT NULL, so the order is the same).
const NEWEST_FIRST = 'DESC NULLS LAST';

/**
 * The ids of one page ($2 limit, $3 offset), read from an index that holds them in list order, so the rows an
 * offset skips come from the index alone (test/chat-list-plans.test.ts): without tags one of chats' activity
 * indexes; with tags the first tag's chat_tags_tag_activity_idx.
 */
function pageSql(filter: ChatListFilter, values: unknown[]): string {
  if ((filter.tagIds?.length ?? 0) === 0) {
    return `SELECT f.id, f.last_message_at AS at FROM chats f WHERE ${chatFilterSql(filter, values)}
      ORDER BY f.last_message_at ${NEWEST_FIRST}, f.id ${NEWEST_FIRST} LIMIT $2 OFFSET $3`;
  }
  return `SELECT ct.chat_id AS id, ct.last_message_at AS at ${taggedSql(filter, values)}
    ORDER BY ct.last_message_at ${NEWEST_FIRST}, ct.chat_id ${NEWEST_FIRST} LIMIT $2 OFFSET $3`;
}

/**
 * One page of the list in one statement: the page's ids first, then only their rows joined to chats and channels,
 * with each chat's tags.
 */
function listText(filter: ChatListFilter, values: unknown[]): string {
  return `SELECT c.id, c.unique_id, c.channel_kind, c.channel_id, c.external_chat_id, c.dialog_name, c.last_text,
    c.last_message_at, c.unread_count, c.custom_unread, c.task_done, c.paused, c.is_group, c.email, c.photo_url,
    c.created_at, c.updated_at, ch.name AS channel_name,${
      filter.withAssignee
        ? `\n    c.needs_human, (SELECT json_build_object('id', m.id, 'name', m.name) FROM members m WHERE m.id = c.assignee_id) AS assignee,`
        : ''
    }
    (SELECT coalesce(json_agg(json_build_object('tags', json_build_object('id', t.id, 'name', t.name)) ORDER BY t.name, t.id), '[]')
       FROM chat_tags x JOIN tags t ON t.id = x.tag_id WHERE x.chat_id = c.id) AS user_tags
  FROM (${pageSql(filter, values)}) page
  JOIN chats c ON c.id = page.id AND c.account_id = $1
  JOIN channels ch ON ch.id = c.channel_id
  ORDER BY page.at ${NEWEST_FIRST}, page.id ${NEWEST_FIRST}`;
}

/** The number of chats matching filters without tags, summed from chat_counts (a few rows per account). */
function countedText(filter: ChatListFilter, values: unknown[]): string {
  const column = filter.taskDone === undefined ? 'chats' : filter.taskDone ? 'done_chats' : 'chats - done_chats';
  const conditions = ['account_id = $1'];
  if (filter.channelKind !== undefined) conditions.push(`channel_kind = $${values.push(filter.channelKind)}`);
  if (filter.channelId !== undefined) conditions.push(`channel_id = $${values.push(filter.channelId)}`);
  return `SELECT coalesce(sum(${column}), 0)::int AS value FROM chat_counts WHERE ${conditions.join(' AND ')}`;
}

/** Filters on more tags than this are rare: their texts are sent unnamed rather than kept by every connection. */
const MAX_NAMED_TAGS = 4;

/** Fixed texts, one per statement kind and filter shape, made at the first use of the shape. */
const texts = new Map<string, string>();

/** The values of the filters present, in the order every text numbers them: kind, channel, first tag, other tags. */
function filterValues(filter: ChatListFilter): unknown[] {
  const [firstTag, ...otherTags] = filter.tagIds ?? [];
  const values: unknown[] = [];
  if (firstTag === undefined || hasChatFilters(filter)) {
    if (filter.channelKind !== undefined) values.push(filter.channelKind);
    if (filter.channelId !== undefined) values.push(filter.channelId);
    if (typeof filter.assigneeId === 'string') values.push(filter.assigneeId);
  }
  if (firstTag !== undefined) values.push(firstTag);
  values.push(...otherTags);
  return values;
}

/** A statement of a kind for a filter: its text fixed per shape, only its values made for each call. */
function statement(
  kind: string,
  filter: ChatListFilter,
  first: unknown[],
  build: (filter: ChatListFilter, values: unknown[]) => string,
): PreparedQuery {
  const name = `chats_${kind}_${shapeOf(filter)}`;
  const values = [...first, ...filterValues(filter)];
  let text = texts.get(name);
  if (text === undefined) {
    const numbered = [...first];
    text = build(filter, numbered);
    if (numbered.length !== values.length) throw new Error(`${name}: the text numbers ${numbered.length} parameters, not ${values.length}`);
    if ((filter.tagIds?.length ?? 0) > MAX_NAMED_TAGS) return { name: '', text, values };
    texts.set(name, text);
  }
  return { name, text, values };
}

/** The statement of one page of the chat list (exported for the plans test). */
export function listStatement(filter: ChatListFilter, page: ChatListPage): PreparedQuery {
  return statement('list', filter, [filter.accountId, page.limit, page.offset], listText);
}

/** The count of chats without tags from chat_counts (exported for the plans test). */
export function countedStatement(filter: Omit<ChatListFilter, 'tagIds'>): PreparedQuery {
  return statement('counted', { ...filter, tagIds: [] }, [filter.accountId], countedText);
}

const FIND_TAGS = `SELECT id, name, chat_count AS "chatCount" FROM tags WHERE account_id = $1 AND name = ANY($2::text[])`;

export function createChatsStore(db: Executor) {
  const one = async (query: PreparedQuery): Promise<number> => (await preparedRows<{ value: number }>(db, query))[0]?.value ?? 0;

  return {
    /** One page of the chat list with each chat's channel name and tags. */
    async list(filter: ChatListFilter, page: ChatListPage): Promise<ChatListRow[]> {
      return preparedRows<ChatListRow>(db, listStatement(filter, page));
    },

    async countFromCounters(filter: Omit<ChatListFilter, 'tagIds'>): Promise<number> {
      return one(countedStatement(filter));
    },

    /** Unread chats matching the filters without tags, counted from the partial unread index. */
    async countUnread(filter: ChatListFilter): Promise<number> {
      const unread = { ...filter, unread: true, tagIds: [] };
      return one(statement('unread', unread, [filter.accountId], (f, values) => `SELECT count(*)::int AS value FROM chats f WHERE ${chatFilterSql(f, values)}`));
    },

    /** Chats matching chat filters without tags (assignee, needs a human: chat_counts do not count by them), one by one. */
    async countFiltered(filter: ChatListFilter): Promise<number> {
      const untagged = { ...filter, tagIds: [], withAssignee: false };
      return one(statement('filtered', untagged, [filter.accountId], (f, values) => `SELECT count(*)::int AS value FROM chats f WHERE ${chatFilterSql(f, values)}`));
    },

    /** The id and name of an active member of the account (an assignee); undefined when there is none such. */
    async activeMember(accountId: string, memberId: string): Promise<{ id: string; name: string } | undefined> {
      const [row] = await db
        .select({ id: members.id, name: members.name })
        .from(members)
        .where(and(eq(members.accountId, accountId), eq(members.id, memberId), eq(members.status, 'active')));
      return row;
    },

    /** The id and name of a member (a chat's assignee), whatever their status. */
    async memberName(memberId: string): Promise<{ id: string; name: string } | undefined> {
      const [row] = await db.select({ id: members.id, name: members.name }).from(members).where(eq(members.id, memberId));
      return row;
    },

    /** Chats matching tags and chat filters together, counted one by one from the first tag's chats. */
    async countMatching(filter: ChatListFilter): Promise<number> {
      return one(statement('matching', filter, [filter.accountId], (f, values) => `SELECT count(*)::int AS value ${taggedSql(f, values)}`));
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
      return preparedRows<TagCount>(db, { name: 'chats_find_tags', text: FIND_TAGS, values: [accountId, [...names]] });
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
