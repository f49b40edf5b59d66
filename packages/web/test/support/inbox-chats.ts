// What the Inbox's sync tests share (alerts-sync, list-sync): the member they run as, a chat of the list as the server
// sends it, made from a number (its id, names and time follow the number), and a wait for pending promise callbacks.
import type { InboxListChat } from '@parley/contracts';

export const ME = '0198f000-0000-7000-8000-00000000000a';

/** Chat `n` of the list: id `…n`, `Customer n`, its last message `n` seconds after 2026-01-01; `fields` override. */
export function chat(n: number, fields: Partial<InboxListChat> = {}): InboxListChat {
  const at = new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
  return {
    id: `0198f000-0000-7000-8000-${String(n).padStart(12, '0')}`,
    uniqueId: `u${n}`,
    channelName: 'custom',
    channelId: 'cc:api',
    channelSettingsName: 'API',
    chatId: `ext-${n}`,
    dialogName: `Customer ${n}`,
    text: `text ${n}`,
    lastMessageDate: at,
    unreadCount: 0,
    customUnread: false,
    isTriggered: false,
    paused: false,
    isGroup: false,
    email: null,
    photo_100: null,
    userTags: [],
    createdAt: at,
    updatedAt: at,
    assignee: null,
    needsHuman: false,
    ...fields,
  };
}

/** Lets pending promise callbacks run (a fake clock runs no real timers). */
export const settle = () => new Promise((resolve) => setImmediate(resolve));
