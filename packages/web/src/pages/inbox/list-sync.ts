// The Inbox's list kept live (issue #41): each live event and change carries its chat as the list shows it, which is
// patched into the page in place (moved up, changed, added or dropped by the filters); only when the patch cannot
// be known exact (the count of a page that is not the whole list, a hole left at its end, a message without its
// chat, a gap) is the page reloaded, at most once per RELOAD_INTERVAL_MS however steady the flow. No DOM: the bench
// drives it in Node (bench/scenarios/team-inbox.ts).
import type { InboxListChat } from '@parley/contracts';
import type { LiveMessage } from '../../live-messages.ts';
import { createThrottle, realTimers, type Timers } from '../../throttle.ts';
import { PAGE, type Filters } from './filters.ts';

/** An open Inbox reloads its list at most this often under a steady flow of live messages. */
export const RELOAD_INTERVAL_MS = 3_000;

export type ListQuery = Record<string, string | number | boolean | undefined>;

export interface ChatPage {
  chats: InboxListChat[];
  count: number;
}

/** The console list's query for these filters (`GET /chat/all-chats/`). */
export function listQuery(filters: Filters): ListQuery {
  return {
    limit: PAGE,
    offset: filters.offset,
    channelId: filters.channelId || undefined,
    channelName: filters.channelName || undefined,
    tag: filters.tag.trim() || undefined,
    complitedTask: filters.done ? true : undefined,
    unread: filters.unread ? true : undefined,
    needsHuman: filters.needsHuman ? true : undefined,
    assignee: filters.assignee || undefined,
  };
}

/** The tag names of a `tag` filter as the server reads them: split at commas, trimmed, blanks dropped. */
function tagNames(tag: string): string[] {
  return tag
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
}

/**
 * Whether the list with these filters holds the chat, as the server decides it; undefined when it cannot be told
 * here (`assignee=me` before the member is known).
 */
export function matchesFilters(chat: InboxListChat, filters: Filters, memberId: string | undefined): boolean | undefined {
  if (filters.channelId && chat.channelId !== filters.channelId) return false;
  if (filters.channelName && chat.channelName !== filters.channelName) return false;
  const names = new Set(chat.userTags.map((tag) => tag.tags.name));
  if (!tagNames(filters.tag).every((name) => names.has(name))) return false;
  if (filters.done && !chat.isTriggered) return false;
  if (filters.unread && !(chat.unreadCount > 0 || chat.customUnread)) return false;
  if (filters.needsHuman && !chat.needsHuman) return false;
  if (filters.assignee === 'none') return chat.assignee === null;
  if (filters.assignee === 'me') return memberId === undefined ? undefined : chat.assignee?.id === memberId;
  if (filters.assignee) return chat.assignee?.id.toLowerCase() === filters.assignee.toLowerCase();
  return true;
}

/** The list's order: newest activity first, then the greater id (the server's `last_message_at DESC, id DESC`). */
export function newestFirst(a: InboxListChat, b: InboxListChat): number {
  if (a.lastMessageDate !== b.lastMessageDate) return a.lastMessageDate < b.lastMessageDate ? 1 : -1;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

/** Whether `chat` is an older state of the chat than `shown` (a reload's answer read before a patch). */
function isOlder(chat: InboxListChat, shown: InboxListChat): boolean {
  if (chat.lastMessageDate !== shown.lastMessageDate) return chat.lastMessageDate < shown.lastMessageDate;
  return chat.updatedAt < shown.updatedAt;
}

export interface Patched extends ChatPage {
  /** The page and count are what the server would answer now (else a reload is due). */
  exact: boolean;
}

/**
 * The first page (`limit` chats) after a chat changed to `chat` (null: gone). The page is the whole list when
 * `count` is not above its length: then every patch is exact. Otherwise a chat that newly matches may or may not have
 * been counted (it may have matched beyond the page), and one that no longer matches leaves a hole at the end.
 */
export function patchPage(page: ChatPage, chatId: string, chat: InboxListChat | null, filters: Filters, memberId: string | undefined, limit = PAGE): Patched {
  const whole = page.count <= page.chats.length;
  const index = page.chats.findIndex((shown) => shown.id === chatId);
  const shown = index >= 0 ? page.chats[index] : undefined;
  if (chat && shown && isOlder(chat, shown)) return { ...page, exact: true };
  const matches = chat === null ? false : matchesFilters(chat, filters, memberId);
  if (matches === undefined) return { ...page, exact: false };
  const others = index >= 0 ? page.chats.filter((_, i) => i !== index) : page.chats;
  if (!matches) {
    if (!shown) return { ...page, exact: whole };
    return { chats: others, count: page.count - 1, exact: whole };
  }
  const placed = chat === null ? others : [...others, chat].sort(newestFirst);
  if (shown) return { chats: placed, count: page.count, exact: true };
  if (whole) {
    // A chat new to the list: counted now; a full page lets its last chat go.
    return { chats: placed.slice(0, limit), count: page.count + 1, exact: true };
  }
  // Beyond a page that is not the whole list it may have been counted already: shown if it sorts into the page.
  return { chats: placed.slice(0, limit), count: page.count, exact: false };
}

export interface ListState extends ChatPage {
  /** The last load's failure, shown until a load succeeds. */
  error: string | null;
}

export interface ListSyncOptions {
  /** `GET /chat/all-chats/` with this query. */
  fetchPage(query: ListQuery): Promise<ChatPage>;
  /** The signed-in member (`assignee=me`); undefined until known. */
  memberId: string | undefined;
  filters: Filters;
  onChange(state: ListState): void;
  timers?: Timers;
  reloadIntervalMs?: number;
}

/**
 * The Inbox's list: loads the page of its filters, patches it with live messages, and reloads it (throttled) when a
 * patch cannot be exact. Only the newest load's answer is shown, with the live patches heard while it was on its
 * way applied again on top (its answer may have been read before them).
 */
export function createListSync(options: ListSyncOptions) {
  const { fetchPage, onChange, timers = realTimers, reloadIntervalMs = RELOAD_INTERVAL_MS } = options;
  let filters = options.filters;
  /** The filters of the page shown (a load for newer ones may be on its way). */
  let shownFilters = filters;
  let memberId = options.memberId;
  let state: ListState = { chats: [], count: 0, error: null };
  let loads = 0;
  /** Patches heard while the newest load is on its way (undefined when none is). */
  let heard: { chatId: string; chat: InboxListChat | null }[] | undefined;
  let stopped = false;

  const publish = (next: ListState) => {
    state = next;
    if (!stopped) onChange(state);
  };

  const load = async () => {
    const current = ++loads;
    heard = [];
    const asked = filters;
    try {
      const page = await fetchPage(listQuery(asked));
      if (current !== loads) return;
      let next: ChatPage = page;
      let exact = true;
      for (const patch of heard) {
        const patched = patchPage(next, patch.chatId, patch.chat, asked, memberId);
        exact &&= patched.exact;
        next = patched;
      }
      heard = undefined;
      shownFilters = asked;
      publish({ chats: next.chats, count: next.count, error: null });
      if (!exact) throttle.request();
    } catch (failure) {
      if (current !== loads) return;
      heard = undefined;
      publish({ ...state, error: failure instanceof Error ? failure.message : String(failure) });
    }
  };
  const throttle = createThrottle(() => void load(), reloadIntervalMs, timers);

  return {
    state: () => state,
    /** New filters: the list loads them at once. */
    setFilters(next: Filters) {
      filters = next;
      throttle.runNow();
    },
    setMemberId(next: string | undefined) {
      memberId = next;
    },
    /** Loads the page now (after the member's own action). */
    reload() {
      throttle.runNow();
    },
    live(message: LiveMessage) {
      if (message.kind === 'dropped') return;
      if (message.kind === 'reload' || message.chatId === null || message.chat === undefined || shownFilters.offset > 0) {
        throttle.request();
        return;
      }
      heard?.push({ chatId: message.chatId, chat: message.chat });
      const patched = patchPage(state, message.chatId, message.chat, shownFilters, memberId);
      if (patched.chats !== state.chats || patched.count !== state.count) publish({ chats: patched.chats, count: patched.count, error: state.error });
      if (!patched.exact) throttle.request();
    },
    stop() {
      stopped = true;
      throttle.cancel();
    },
  };
}

export type ListSync = ReturnType<typeof createListSync>;
