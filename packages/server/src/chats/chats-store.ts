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
  /**
   * With tags and other filters, where the page is read from: the first tag's chats (`tag`, the default: filtered by
   * the chat columns chat_tags copies), or the chats the other filters select, each checked for the tags (`chats`:
   * when those are fewer than the tag's).
   */
  drive?: 'tag' | 'chats';
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
  // Short (a statement's name is cut at 63 bytes): t2 two tags, k kind, c channel, d/o done/open, u unread,
  // h needs a human, n/a unassigned/a member's, w with assignees, b read from the chats.
  return [
    tagCount === 0 ? 'all' : `t${tagCount}`,
    filter.channelKind === undefined ? '' : 'k',
    filter.channelId === undefined ? '' : 'c',
    filter.taskDone === undefined ? '' : filter.taskDone ? 'd' : 'o',
    filter.unread ? 'u' : '',
    filter.needsHuman ? 'h' : '',
    filter.assigneeId === undefined ? '' : filter.assigneeId === null ? 'n' : 'a',
    filter.withAssignee ? 'w' : '',
    tagCount > 0 && filter.drive === 'chats' ? 'b' : '',
  ].join('');
}

/**
 * The parameters of a shape's statements in order ($1 the account, then the filters present) and the conditions on
 * chats (alias `f`) they number.
 */
function chatFilterSql(filter: ChatListFilter, values: unknown[]): string {
  return ['f.account_id = $1', ...columnConditions('f', filter, values)].join(' AND ');
}

/**
 * The conditions of the filters besides tags on a table with the chat's columns: chats (`f`; `unread` is its
 * expression) or a table that copies them (chat_tags, the counts: `unread` a column; assignee_id the zero uuid for
 * nobody in the counts).
 */
function columnConditions(alias: string, filter: ChatListFilter, values: unknown[], counted = false): string[] {
  const conditions: string[] = [];
  const param = (value: unknown): string => `$${values.push(value)}`;
  if (filter.channelKind !== undefined) conditions.push(`${alias}.channel_kind = ${param(filter.channelKind)}`);
  if (filter.channelId !== undefined) conditions.push(`${alias}.channel_id = ${param(filter.channelId)}`);
  if (filter.taskDone !== undefined) conditions.push(filter.taskDone ? `${alias}.task_done` : `NOT ${alias}.task_done`);
  // On chats (`f`): the predicate of chats_account_unread_activity_idx (migration 0009), written the same way.
  if (filter.unread) conditions.push(alias === 'f' ? '(f.unread_count > 0 OR f.custom_unread)' : `${alias}.unread`);
  // On chats: the predicate of chats_account_needs_human_activity_idx (migration 0021).
  if (filter.needsHuman) conditions.push(`${alias}.needs_human`);
  // A member's chats come from chats_account_assignee_activity_idx; unassigned ones from the activity index.
  if (filter.assigneeId === null) conditions.push(counted ? `${alias}.assignee_id = '${NOBODY}'` : `${alias}.assignee_id IS NULL`);
  else if (filter.assigneeId !== undefined) conditions.push(`${alias}.assignee_id = ${param(filter.assigneeId)}`);
  return conditions;
}

/** The assignee of unassigned chats in the counts (a key column cannot be null). */
const NOBODY = '00000000-0000-0000-0000-000000000000';

/**
 * Chats having the first tag (`ct`, read from chat_tags_tag_activity_idx, which includes the chat columns chat_tags
 * copies: no join to chats) and every other one (tags belong to the account and only its chats are tagged).
 */
function taggedSql(filter: ChatListFilter, values: unknown[]): string {
  const [firstTag, ...otherTags] = filter.tagIds ?? [];
  const conditions = columnConditions('ct', filter, values);
  conditions.push(`ct.tag_id = $${values.push(firstTag)}`);
  return `FROM chat_tags ct WHERE ${[...conditions, ...otherTagsSql('ct.chat_id', otherTags, values)].join(' AND ')}`;
}

/**
 * One probe of chat_tags' primary key per chat and tag. (Forms taking all the tags in one array parameter were
 * planned worse: a hashed subplan reading all of chat_tags, or a row estimate so low that JIT kicked in.) `OFFSET 0`
 * keeps each probe a subplan run per chat: without it the planner may turn the EXISTS into a join, and with some
 * samples of the statistics it hashed all of the tag's chats and sorted the matches instead of reading the page in
 * order (seen on PostgreSQL 15 about one ANALYZE in seven; test/chat-list-plans.test.ts).
 */
function otherTagsSql(chatIdColumn: string, tagIds: readonly (string | undefined)[], values: unknown[]): string[] {
  return tagIds.map((tagId) => `EXISTS (SELECT FROM chat_tags x WHERE x.tag_id = $${values.push(tagId)} AND x.chat_id = ${chatIdColumn} OFFSET 0)`);
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
  const tagIds = filter.tagIds ?? [];
  if (tagIds.length === 0 || filter.drive === 'chats') {
    // With tags: the chats the other filters select, in list order from their index, each checked for every tag.
    const where = [chatFilterSql(filter, values), ...otherTagsSql('f.id', tagIds, values)].join(' AND ');
    return `SELECT f.id, f.last_message_at AS at FROM chats f WHERE ${where}
      ORDER BY f.last_message_at ${NEWEST_FIRST}, f.id ${NEWEST_FIRST} LIMIT $2 OFFSET $3`;
  }
  return `SELECT ct.chat_id AS id, ct.last_message_at AS at ${taggedSql(filter, values)}
    ORDER BY ct.last_message_at ${NEWEST_FIRST}, ct.chat_id ${NEWEST_FIRST} LIMIT $2 OFFSET $3`;
}

/** The columns of a listed chat (`c`, its channel `ch`): a ChatListRow. */
function listedColumns(withAssignee: boolean | undefined): string {
  return `c.id, c.unique_id, c.channel_kind, c.channel_id, c.external_chat_id, c.dialog_name, c.last_text,
    c.last_message_at, c.unread_count, c.custom_unread, c.task_done, c.paused, c.is_group, c.email, c.photo_url,
    c.created_at, c.updated_at, ch.name AS channel_name,${
      withAssignee
        ? `\n    c.needs_human, (SELECT json_build_object('id', m.id, 'name', m.name) FROM members m WHERE m.id = c.assignee_id) AS assignee,`
        : ''
    }
    (SELECT coalesce(json_agg(json_build_object('tags', json_build_object('id', t.id, 'name', t.name)) ORDER BY t.name, t.id), '[]')
       FROM chat_tags x JOIN tags t ON t.id = x.tag_id WHERE x.chat_id = c.id) AS user_tags`;
}

/**
 * One page of the list in one statement: the page's ids first, then only their rows joined to chats and channels,
 * with each chat's tags.
 */
function listText(filter: ChatListFilter, values: unknown[]): string {
  return `SELECT ${listedColumns(filter.withAssignee)}
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

/** The number of the account's chats matching filters besides tags, summed from chat_inbox_counts. */
function inboxCountedText(filter: ChatListFilter, values: unknown[]): string {
  const conditions = ['k.account_id = $1', ...columnConditions('k', filter, values, true)];
  return `SELECT coalesce(sum(k.chats), 0)::int AS value FROM chat_inbox_counts k WHERE ${conditions.join(' AND ')}`;
}

/**
 * The number of chats having each tag and matching the other filters, summed from chat_tag_counts; the least of
 * them (with one tag its exact count; with several at least the chats having all, at most those having any: the
 * spec's `count`).
 */
function tagCountedText(filter: ChatListFilter, values: unknown[]): string {
  const conditions = columnConditions('k', filter, values, true);
  const tags = (filter.tagIds ?? []).map((tagId) => `$${values.push(tagId)}::uuid`);
  return `SELECT min(coalesce(counted.chats, 0))::int AS value
    FROM unnest(ARRAY[${tags.join(', ')}]) tag(id)
    LEFT JOIN LATERAL (SELECT sum(k.chats) AS chats FROM chat_tag_counts k WHERE ${['k.tag_id = tag.id', ...conditions].join(' AND ')}) counted ON true`;
}

/** Filters on more tags than this are rare: their texts are sent unnamed rather than kept by every connection. */
const MAX_NAMED_TAGS = 4;

/** Fixed texts, one per statement kind and filter shape, made at the first use of the shape. */
const texts = new Map<string, string>();

/** The values of the filters present, in the order every text numbers them: kind, channel, assignee, the tags. */
function filterValues(filter: ChatListFilter): unknown[] {
  const values: unknown[] = [];
  if (filter.channelKind !== undefined) values.push(filter.channelKind);
  if (filter.channelId !== undefined) values.push(filter.channelId);
  if (typeof filter.assigneeId === 'string') values.push(filter.assigneeId);
  values.push(...(filter.tagIds ?? []));
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

/** The count of the Inbox's filters without tags from chat_inbox_counts (exported for the plans test). */
export function inboxCountedStatement(filter: ChatListFilter): PreparedQuery {
  return statement('inboxcounted', { ...filter, tagIds: [], withAssignee: false, drive: undefined }, [filter.accountId], inboxCountedText);
}

/** The count of tags with other filters from chat_tag_counts (exported for the plans test). */
export function tagCountedStatement(filter: ChatListFilter): PreparedQuery {
  return statement('tagcounted', { ...filter, withAssignee: false, drive: undefined }, [], tagCountedText);
}

const FIND_TAGS = `SELECT id, name, chat_count AS "chatCount" FROM tags WHERE account_id = $1 AND name = ANY($2::text[])`;

/** Chats of the account by id, as the Inbox's list shows them (the live stream's chats). */
const LISTED_BY_ID = `SELECT ${listedColumns(true)}
  FROM chats c JOIN channels ch ON ch.id = c.channel_id
  WHERE c.account_id = $1 AND c.id = ANY($2::uuid[])`;

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

    /** Chats matching the filters besides tags, summed from chat_inbox_counts (a few rows per account and key). */
    async countInbox(filter: ChatListFilter): Promise<number> {
      return one(inboxCountedStatement(filter));
    },

    /** Chats having the tags and matching the other filters, summed per tag from chat_tag_counts (the least of them). */
    async countTagged(filter: ChatListFilter): Promise<number> {
      return one(tagCountedStatement(filter));
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

    /** These chats of the account (ids of other accounts' or deleted chats are absent), with assignee and `needs_human`. */
    async listedByIds(accountId: string, chatIds: readonly string[]): Promise<ChatListRow[]> {
      if (chatIds.length === 0) return [];
      return preparedRows<ChatListRow>(db, { name: 'chats_listed_by_id', text: LISTED_BY_ID, values: [accountId, [...chatIds]] });
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
