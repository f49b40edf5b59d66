// Chats: the list and the state machines of the spec's States and transitions (read, task status, ban,
// pause). A status change writes its dialog_status_changed event in the same transaction.
import { CUSTOMER_OTHER_CHATS_MAX, type AgentSettings, type Chat, type ChannelKind, type ChatCustomer, type InboxChat, type InboxListChat, type ListChatsQuery } from '@parley/contracts';
import type { ChannelsStore } from '../channels/channels-store.ts';
import { DEFAULT_SETTINGS } from '../channels/channels-service.ts';
import type { Database, Executor } from '../db/client.ts';
import { Errors } from '../errors.ts';
import { notifyChatChanged } from '../events/live-feed.ts';
import { recordEvent, type EventsCommitted } from '../events/outbox.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { Clock } from '../lib/clock.ts';
import { isUuid, newId } from '../lib/ids.ts';
import { dialogStatusChangedEvent, webhookChat, type TaskStatusSource } from '../webhooks/payloads.ts';
import { createCustomerStore, type OtherChatRow } from './customer-store.ts';
import type { ChatListFilter, ChatListPage, ChatListRow, ChatRow, ChatsStore, TagCount } from './chats-store.ts';

/** What a task status change needs of the CRM side (crm/crm-service.ts implements it): its syncs, in the change's own transaction. */
export interface CrmSyncHook {
  enqueue(tx: Executor, chat: ChatRow): Promise<void>;
}

export interface ChatsServiceDeps {
  db: Database;
  chatsStore: (executor: Executor) => ChatsStore;
  channelsStore: (executor: Executor) => Pick<ChannelsStore, 'find'>;
  queue: Pick<JobQueue, 'enqueue' | 'wake'>;
  clock: Clock;
  eventsCommitted?: EventsCommitted;
  /** CRM syncs of a chat whose task became done (docs/architecture.md, CRM connections), in the same transaction. */
  crmSync?: CrmSyncHook;
}

/** `tag=a,b` → chats having all of them; blank names are ignored. */
export function parseTagFilter(tag: string | undefined): string[] {
  if (tag === undefined) return [];
  return tag
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
}

/** The channel's agent settings now: the `settings` object of webhook payloads. */
export async function settingsOf(executor: Executor, channelsStore: ChatsServiceDeps['channelsStore'], chat: ChatRow): Promise<AgentSettings> {
  const channel = await channelsStore(executor).find(chat.accountId, chat.channelId);
  return { ...DEFAULT_SETTINGS, ...channel?.settings };
}

/** What the store is asked for one list request; the tags found, rarest first. */
export interface ListArguments {
  filter: ChatListFilter;
  page: ChatListPage;
  tags: TagCount[];
}

function otherChatView(row: OtherChatRow): ChatCustomer['otherChats'][number] {
  return {
    id: row.id,
    channelName: row.channelKind as ChannelKind,
    channelSettingsName: row.channelName,
    dialogName: row.dialogName,
    text: row.lastText,
    lastMessageDate: row.lastMessageAt.toISOString(),
  };
}

/** The store's arguments for a list query; undefined when a tag name is none of the account's (no chat matches). */
export async function listArguments(
  store: Pick<ChatsStore, 'findTags'>,
  accountId: string,
  query: ListChatsQuery & { unread?: boolean; needsHuman?: boolean; assigneeId?: string | null; withAssignee?: boolean },
): Promise<ListArguments | undefined> {
  const names = [...new Set(parseTagFilter(query.tag))];
  const tags = names.length > 0 ? await store.findTags(accountId, names) : [];
  if (tags.length < names.length) return undefined;
  // The rarest tag's chats are read in list order and the others checked per chat (chats-store.ts).
  tags.sort((a, b) => a.chatCount - b.chatCount);
  const filter: ChatListFilter = {
    accountId,
    channelKind: query.channelName,
    channelId: query.channelId,
    taskDone: query.complitedTask,
    ...(query.unread ? { unread: true } : {}),
    ...(query.needsHuman ? { needsHuman: true } : {}),
    ...(query.assigneeId !== undefined ? { assigneeId: query.assigneeId } : {}),
    ...(query.withAssignee ? { withAssignee: true } : {}),
    tagIds: tags.map((tag) => tag.id),
  };
  return { filter, page: { limit: query.limit ?? 500, offset: query.offset ?? 0 }, tags };
}

/** Whether the list is filtered by anything but tags. */
function hasOtherFilters(filter: ChatListFilter): boolean {
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
 * `count` of the chat list without counting rows: the copies kept by triggers have it (chat_counts for the public
 * list's filters, chat_inbox_counts for the Inbox's, chat_tag_counts for tags with other filters); a tag alone has
 * its chat_count. With several tags it is the least of the tags' counts, which the spec allows (it may include
 * chats having only some of them).
 */
async function countOf(store: ChatsStore, { filter, tags }: ListArguments): Promise<number> {
  if (tags.length > 0 && !hasOtherFilters(filter)) return Math.min(...tags.map((tag) => tag.chatCount));
  if (tags.length > 0) return store.countTagged(filter);
  const inboxOnly = filter.unread === true || filter.needsHuman === true || filter.assigneeId !== undefined;
  return inboxOnly ? store.countInbox(filter) : store.countFromCounters(filter);
}

/**
 * With tags and other filters, whether the page is read from the chats those select rather than from the rarest
 * tag's chats: only through a small partial index (a member's chats, those needing a person) with a tenth of the
 * tag's chats or fewer. The tag's chats are read from one index with the columns filtered (no table), the chats'
 * from their table, about ten times the cost per row.
 */
async function readsFewerFromChats(store: ChatsStore, { filter, tags }: ListArguments): Promise<boolean> {
  const rarest = tags[0];
  const member = typeof filter.assigneeId === 'string' ? filter.assigneeId : undefined;
  if (!rarest || (member === undefined && !filter.needsHuman)) return false;
  const indexed = await store.countInbox({ accountId: filter.accountId, ...(member ? { assigneeId: member } : { needsHuman: true }) });
  return indexed * 10 < rarest.chatCount;
}

/** `count` of a page of `rows` chats: a page that is not full ends the list (exact with several tags too). */
async function listCount(store: ChatsStore, args: ListArguments, rows: number): Promise<number> {
  const { page } = args;
  if (rows < page.limit && (rows > 0 || page.offset === 0)) return page.offset + rows;
  return countOf(store, args);
}

/**
 * Sets the task status in the caller's transaction; when it actually changes, writes dialog_status_changed there
 * too, and when it became done, the CRM syncs. Returns whether it changed (the caller wakes the delivery worker
 * and the job queue after the commit). The one place every source of a status change goes through.
 */
export async function recordTaskStatus(
  tx: Executor,
  deps: Pick<ChatsServiceDeps, 'chatsStore' | 'channelsStore' | 'crmSync'>,
  change: { accountId: string; chatId: string; done: boolean; source: TaskStatusSource; at: () => Date },
): Promise<boolean> {
  const { accountId, chatId, done, source } = change;
  // `at` is called once the chat's row is locked, so racing changes get their changedAt in commit order (a receiver
  // keeping the newest changedAt ends with the real status).
  const locked = await deps.chatsStore(tx).lockForUpdate(accountId, chatId);
  if (!locked || locked.taskDone === done) return false;
  const at = change.at();
  const chat = await deps.chatsStore(tx).setTaskDone(accountId, chatId, done, at);
  if (!chat) return false;
  const payload = dialogStatusChangedEvent({
    eventId: newId(),
    chat: webhookChat(chat),
    settings: await settingsOf(tx, deps.channelsStore, chat),
    done,
    source,
    at,
  });
  await recordEvent(tx, { accountId, channelId: chat.channelId, chatId, payload });
  if (done) await deps.crmSync?.enqueue(tx, chat);
  return true;
}

/** A chat row as the public list shows it. */
function chatView(chat: ChatRow, channelName: string | null, userTags: Chat['userTags']): Chat {
  return {
    id: chat.id,
    uniqueId: chat.uniqueId,
    channelName: chat.channelKind as ChannelKind,
    channelId: chat.channelId,
    channelSettingsName: channelName,
    chatId: chat.externalChatId,
    dialogName: chat.dialogName,
    text: chat.lastText,
    lastMessageDate: chat.lastMessageAt.toISOString(),
    unreadCount: chat.unreadCount,
    customUnread: chat.customUnread,
    isTriggered: chat.taskDone,
    paused: chat.paused,
    isGroup: chat.isGroup,
    email: chat.email,
    photo_100: chat.photoUrl,
    userTags,
    createdAt: chat.createdAt.toISOString(),
    updatedAt: chat.updatedAt.toISOString(),
  };
}

/** A row of the list's statement as the Inbox shows it. */
function inboxListedChat(row: ChatListRow): InboxListChat {
  return { ...listedChat(row), assignee: row.assignee ?? null, needsHuman: row.needs_human ?? false };
}

/** A row of the list's statement as the public list shows it. */
function listedChat(row: ChatListRow): Chat {
  return {
    id: row.id,
    uniqueId: row.unique_id,
    channelName: row.channel_kind as ChannelKind,
    channelId: row.channel_id,
    channelSettingsName: row.channel_name,
    chatId: row.external_chat_id,
    dialogName: row.dialog_name,
    text: row.last_text,
    lastMessageDate: row.last_message_at.toISOString(),
    unreadCount: row.unread_count,
    customUnread: row.custom_unread,
    isTriggered: row.task_done,
    paused: row.paused,
    isGroup: row.is_group,
    email: row.email,
    photo_100: row.photo_url,
    userTags: row.user_tags,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function createChatsService({ db, chatsStore, channelsStore, queue, clock, eventsCommitted = () => {}, crmSync }: ChatsServiceDeps) {
  const store = chatsStore(db);

  async function requireChat(accountId: string, chatId: string): Promise<ChatRow> {
    const chat = isUuid(chatId) ? await store.find(accountId, chatId) : undefined;
    if (!chat) throw Errors.chatNotFound();
    return chat;
  }

  /**
   * Sets the task status; when it actually changes, writes dialog_status_changed in the same transaction.
   * Returns whether it changed.
   */
  async function applyTaskStatus(
    accountId: string,
    chatId: string,
    done: boolean,
    source: TaskStatusSource,
  ): Promise<boolean> {
    const changed = await db.transaction((tx) =>
      recordTaskStatus(tx, { chatsStore, channelsStore, crmSync }, { accountId, chatId, done, source, at: () => clock.now() }),
    );
    if (changed) eventsCommitted();
    if (changed && done && crmSync) queue.wake();
    return changed;
  }

  async function getChat(accountId: string, chatId: string): Promise<InboxChat> {
    const chat = isUuid(chatId) ? await store.find(accountId, chatId) : undefined;
    if (!chat) throw Errors.consoleChatNotFound();
    const channel = await channelsStore(db).find(accountId, chat.channelId);
    const tags = (await store.tagsOf([chat.id])).map(({ id, name }) => ({ tags: { id, name } }));
    const assignee = chat.assigneeId === null ? null : ((await store.memberName(chat.assigneeId)) ?? null);
    return { ...chatView(chat, channel?.name ?? null, tags), assignee, needsHuman: chat.needsHuman, banned: chat.banned };
  }

  /** The customer card's extras: the widget host page and the customer's other chats (docs/decisions.md). */
  async function customerOf(accountId: string, chatId: string): Promise<ChatCustomer> {
    const chat = isUuid(chatId) ? await store.find(accountId, chatId) : undefined;
    if (!chat) throw Errors.consoleChatNotFound();
    const customers = createCustomerStore(db);
    const visitor = await customers.visitorOf(chat);
    const found = [
      ...(visitor ? await customers.visitorChats(chat, visitor.id, CUSTOMER_OTHER_CHATS_MAX) : []),
      ...(chat.email ? await customers.emailChats(chat, chat.email, CUSTOMER_OTHER_CHATS_MAX) : []),
    ];
    const unique = [...new Map(found.map((row) => [row.id, row])).values()];
    unique.sort((a, b) => b.lastMessageAt.getTime() - a.lastMessageAt.getTime() || (a.id < b.id ? 1 : -1));
    return { page: visitor?.pageUrl ?? null, otherChats: unique.slice(0, CUSTOMER_OTHER_CHATS_MAX).map(otherChatView) };
  }

  return {
    applyTaskStatus,
    customerOf,

    /** The chat list; `unread` is the console's own filter (the public list has none). */
    async listChats(accountId: string, query: ListChatsQuery & { unread?: boolean }): Promise<{ chats: Chat[]; count: number }> {
      const args = await listArguments(store, accountId, query);
      // A name the account has no tag of: no chat has all of them.
      if (!args) return { chats: [], count: 0 };
      const rows = await store.list(args.filter, args.page);
      const count = await listCount(store, args, rows.length);
      return { chats: rows.map(listedChat), count };
    },

    /**
     * The Inbox's list: the public list's filters, `unread`, `needsHuman` and `assignee` (`me`: the caller's chats;
     * `none`: unassigned ones; or a member's id), each chat with its assignee and whether it needs a human.
     */
    async listInboxChats(
      caller: { accountId: string; memberId: string },
      query: ListChatsQuery & { unread?: boolean; needsHuman?: boolean; assignee?: string },
    ): Promise<{ chats: InboxListChat[]; count: number }> {
      const { assignee, ...rest } = query;
      const assigneeId = assignee === undefined ? undefined : assignee === 'me' ? caller.memberId : assignee === 'none' ? null : assignee.toLowerCase();
      const args = await listArguments(store, caller.accountId, { ...rest, assigneeId, withAssignee: true });
      if (!args) return { chats: [], count: 0 };
      // Counted first (a sum over a few rows): no page is read for a list that is empty there. With tags and other
      // filters the page is read from the tag's chats, or from a small partial index (readsFewerFromChats).
      const { filter, page, tags } = args;
      const counted = await countOf(store, args);
      if (counted === 0 || page.offset >= counted) return { chats: [], count: counted };
      const drive = (await readsFewerFromChats(store, args)) ? 'chats' : 'tag';
      const rows = await store.list({ ...filter, drive }, page);
      const count = tags.length > 1 && rows.length < page.limit && (rows.length > 0 || page.offset === 0) ? page.offset + rows.length : counted;
      return { chats: rows.map(inboxListedChat), count };
    },

    /**
     * The live stream's view of chats (the Inbox patches its lists with them): each of these chats of the account as
     * the Inbox's list shows it; a chat gone (or another account's) is absent.
     */
    async listedChats(accountId: string, chatIds: readonly string[]): Promise<InboxListChat[]> {
      const ids = chatIds.filter(isUuid);
      return (await store.listedByIds(accountId, ids)).map(inboxListedChat);
    },

    /** The number of the account's chats that need a person (the Inbox's `Needs a human` count). */
    needsHumanCount(accountId: string): Promise<number> {
      return store.countInbox({ accountId, needsHuman: true });
    },

    /** All messages read: unreadCount 0 and the unread flag cleared (docs/architecture.md decision). Open Inboxes hear it. */
    async read(accountId: string, chatId: string) {
      await requireChat(accountId, chatId);
      await store.update(accountId, chatId, { unreadCount: 0, customUnread: false, updatedAt: clock.now() });
      await notifyChatChanged(db, accountId, chatId);
      return { id: chatId, success: true as const };
    },

    async unread(accountId: string, chatId: string) {
      await requireChat(accountId, chatId);
      await store.update(accountId, chatId, { customUnread: true, updatedAt: clock.now() });
      await notifyChatChanged(db, accountId, chatId);
      return { id: chatId, success: true as const };
    },

    /** Console: assigns a chat to an active member of the account, or (null) to nobody; open Inboxes hear it. */
    async assign(accountId: string, chatId: string, memberId: string | null): Promise<InboxChat> {
      const chat = isUuid(chatId) ? await store.find(accountId, chatId) : undefined;
      if (!chat) throw Errors.consoleChatNotFound();
      if (memberId !== null && !(isUuid(memberId) && (await store.activeMember(accountId, memberId)))) throw Errors.assigneeNotFound();
      await store.update(accountId, chatId, { assigneeId: memberId, updatedAt: clock.now() });
      await notifyChatChanged(db, accountId, chatId);
      return getChat(accountId, chatId);
    },

    /** done/undone of the public API: checked now, applied by a background job (202); 503 if it cannot be queued. */
    async requestTaskStatus(accountId: string, chatId: string, done: boolean) {
      await requireChat(accountId, chatId);
      try {
        await queue.enqueue(db, 'chat.setTaskStatus', { accountId, chatId, done });
      } catch {
        throw Errors.notQueued();
      }
      queue.wake();
      return { id: chatId, success: true as const };
    },

    async ban(accountId: string, uniqueId: string) {
      if (await store.setBanned(accountId, uniqueId, true, clock.now())) return { success: true as const };
      if (!(await store.findByUniqueId(accountId, uniqueId))) throw Errors.chatNotFound();
      throw Errors.chatAlreadyBanned();
    },

    async unban(accountId: string, uniqueId: string) {
      if (await store.setBanned(accountId, uniqueId, false, clock.now())) return { success: true as const };
      if (!(await store.findByUniqueId(accountId, uniqueId))) throw Errors.chatNotFound();
      throw Errors.chatNotBanned();
    },

    /** Console: one chat with its tags and ban state; another account's chat is 404. */
    getChat,

    /** Console: ban or unban the chat's customer by chat id; setting the state it already has is no error. */
    async setBanned(accountId: string, chatId: string, banned: boolean): Promise<void> {
      const chat = isUuid(chatId) ? await store.find(accountId, chatId) : undefined;
      if (!chat) throw Errors.consoleChatNotFound();
      await store.setBanned(accountId, chat.uniqueId, banned, clock.now());
    },

    /**
     * Console: pause or resume the agent in a chat (with the agent's handoff, the only transitions of `paused`).
     * Resuming also clears `needsHuman`: the team has taken the chat back from the handoff. Open Inboxes hear it.
     */
    async setPaused(accountId: string, chatId: string, paused: boolean) {
      const changes: Partial<ChatRow> = paused ? { paused } : { paused, needsHuman: false };
      const chat = isUuid(chatId) ? await store.update(accountId, chatId, { ...changes, updatedAt: clock.now() }) : undefined;
      if (!chat) throw Errors.consoleChatNotFound();
      await notifyChatChanged(db, accountId, chatId);
      return { id: chat.id, paused: chat.paused };
    },

    /** Console: a team member sets the task status; a real change is reported with source manual. */
    async setStatusManually(accountId: string, chatId: string, status: 'done' | 'not_done', operatorEmail: string) {
      const chat = isUuid(chatId) ? await store.find(accountId, chatId) : undefined;
      if (!chat) throw Errors.consoleChatNotFound();
      await applyTaskStatus(accountId, chatId, status === 'done', { type: 'manual', operatorEmail });
      return { id: chatId, status };
    },
  };
}

export type ChatsService = ReturnType<typeof createChatsService>;
