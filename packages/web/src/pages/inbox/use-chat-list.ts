// The Inbox list: the filters, the page of chats they find, the `Needs a human` count and the channels to filter
// by, kept up to date by live events.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Channel, InboxListChat } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { useLive } from '../../live.ts';
import { useLoadOrder } from '../../load-order.ts';
import { PAGE, type Filters } from './filters.ts';

/** `version` grows when a live event is about the open chat (`chatId`), which then reloads. */
export function useChatList(chatId: string | undefined) {
  const [filters, setFilters] = useState<Filters>({
    channelId: '',
    channelName: '',
    tag: '',
    done: false,
    unread: false,
    needsHuman: false,
    assignee: '',
    offset: 0,
  });
  const [chats, setChats] = useState<InboxListChat[]>([]);
  const [count, setCount] = useState(0);
  const [needsHumanCount, setNeedsHumanCount] = useState<number | null>(null);
  const [channels, setChannels] = useState<Channel[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const reloadTimer = useRef<number | undefined>(undefined);
  // A load reads the filters of the moment it starts (a reload after live events may start after they changed),
  // and only the newest load's answer is shown.
  const currentFilters = useRef(filters);
  currentFilters.current = filters;
  const listOrder = useLoadOrder();

  const loadList = useCallback(async () => {
    const load = listOrder.begin();
    const filters = currentFilters.current;
    try {
      const result = await api<{ chats: InboxListChat[]; count: number }>('GET', '/chat/all-chats/', {
        query: {
          limit: PAGE,
          offset: filters.offset,
          channelId: filters.channelId || undefined,
          channelName: filters.channelName || undefined,
          tag: filters.tag.trim() || undefined,
          complitedTask: filters.done ? true : undefined,
          unread: filters.unread ? true : undefined,
          needsHuman: filters.needsHuman ? true : undefined,
          assignee: filters.assignee || undefined,
        },
      });
      if (!listOrder.isNewest(load)) return;
      setChats(result.chats);
      setCount(result.count);
      setError(null);
    } catch (failure) {
      if (listOrder.isNewest(load)) setError(errorText(failure));
    }
    // The `Needs a human` count is the account's, whatever the other filters.
    api<{ count: number }>('GET', '/chat/all-chats/', { query: { needsHuman: true, limit: 1 } }).then(
      (result) => setNeedsHumanCount(result.count),
      () => undefined,
    );
  }, []);

  useEffect(() => {
    void loadList();
  }, [filters, loadList]);
  useEffect(() => {
    api<{ channels: Channel[] }>('GET', '/channels/all/').then((r) => setChannels(r.channels), () => undefined);
  }, []);

  // Bursts of events make one reload of the list; the open chat reloads when an event is about it.
  useLive((eventChatId) => {
    if (eventChatId === null || eventChatId === chatId) setVersion((v) => v + 1);
    window.clearTimeout(reloadTimer.current);
    reloadTimer.current = window.setTimeout(() => void loadList(), 150);
  });

  return { filters, setFilters, chats, count, needsHumanCount, channels, error, version, loadList };
}
