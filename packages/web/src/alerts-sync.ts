// The team alerts' knowledge (alerts.tsx), kept live without reloading on every event (issue #41): the count of chats
// needing a person comes with each live message, and a live message's chat says whether it now needs a person or is
// the member's. Two lists (the chats needing a person, the member's) are read at the start and after a gap, and
// otherwise only when a message comes without its chat (at most once per RELOAD_INTERVAL_MS). No DOM: the bench
// drives it in Node (bench/scenarios/team-inbox.ts).
import type { InboxListChat } from '@parley/contracts';
import type { LiveMessage } from './live-messages.ts';
import { RELOAD_INTERVAL_MS, type ChatPage, type ListQuery } from './pages/inbox/list-sync.ts';
import { createThrottle, realTimers, type Timers } from './throttle.ts';

/** How many chats of each list are read. */
export const ALERT_LIST_LIMIT = 100;

export type AlertKind = 'needsPerson' | 'assigned' | 'newMessage';

export interface AlertsSyncOptions {
  fetchPage(query: ListQuery): Promise<ChatPage>;
  memberId: string;
  /** The account's count of chats needing a person. */
  onCount(count: number): void;
  /** A chat newly needing a person, newly assigned to the member, or a customer's message in one of theirs. */
  onAlert(kind: AlertKind, chat: { id: string; name: string }): void;
  timers?: Timers;
  reloadIntervalMs?: number;
}

export function createAlertsSync(options: AlertsSyncOptions) {
  const { fetchPage, memberId, onCount, onAlert, timers = realTimers, reloadIntervalMs = RELOAD_INTERVAL_MS } = options;
  /** Chats known to need a person, and the member's (id → name); undefined until the first load. */
  let known: { need: Set<string>; mine: Map<string, string> } | undefined;
  let loads = 0;
  let stopped = false;

  const load = async () => {
    const current = ++loads;
    const [need, mine] = await Promise.all([
      fetchPage({ needsHuman: true, limit: ALERT_LIST_LIMIT }),
      fetchPage({ assignee: 'me', limit: ALERT_LIST_LIMIT }),
    ]);
    if (current !== loads || stopped) return;
    onCount(need.count);
    const before = known;
    known = { need: new Set(need.chats.map((c) => c.id)), mine: new Map(mine.chats.map((c) => [c.id, c.dialogName])) };
    if (!before) return;
    for (const chat of need.chats) if (!before.need.has(chat.id)) onAlert('needsPerson', { id: chat.id, name: chat.dialogName });
    for (const chat of mine.chats) if (!before.mine.has(chat.id)) onAlert('assigned', { id: chat.id, name: chat.dialogName });
  };
  const throttle = createThrottle(() => void load().catch(() => undefined), reloadIntervalMs, timers);

  /** What the chat's new state says: alerts for what is new, and the sets follow it. */
  const follow = (chatId: string, chat: InboxListChat | null) => {
    if (!known) return;
    if (chat?.needsHuman) {
      if (!known.need.has(chatId)) onAlert('needsPerson', { id: chatId, name: chat.dialogName });
      known.need.add(chatId);
    } else known.need.delete(chatId);
    if (chat && chat.assignee?.id === memberId) {
      if (!known.mine.has(chatId)) onAlert('assigned', { id: chatId, name: chat.dialogName });
      known.mine.set(chatId, chat.dialogName);
    } else known.mine.delete(chatId);
  };

  return {
    /** Reads both lists now. */
    start() {
      throttle.runNow();
    },
    live(message: LiveMessage) {
      if (message.kind === 'dropped') return;
      if (message.kind === 'reload') {
        throttle.request();
        return;
      }
      if (message.needsHumanCount !== undefined) onCount(message.needsHumanCount);
      const { chatId, chat } = message;
      if (message.kind === 'event' && chatId !== null && message.payload?.event === 'new_messages') {
        const name = chat === undefined ? known?.mine.get(chatId) : chat?.assignee?.id === memberId ? chat.dialogName : undefined;
        if (name !== undefined && message.payload.messages?.some((m) => m.role === 'user')) onAlert('newMessage', { id: chatId, name });
      }
      // Without the chat or the count (the server could not read them) the lists are read again.
      if (message.needsHumanCount === undefined || (chatId !== null && chat === undefined)) throttle.request();
      else if (chatId !== null && chat !== undefined) follow(chatId, chat);
    },
    stop() {
      stopped = true;
      throttle.cancel();
    },
  };
}

export type AlertsSync = ReturnType<typeof createAlertsSync>;
