// The Inbox list: the filters, the page of chats they find and the channels to filter by, kept up to date by live
// messages (list-sync.ts: patched in place, reloaded at most every few seconds under a steady flow).
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { Channel } from '@parley/contracts';
import { api } from '../../api.ts';
import { useLiveMessages } from '../../live.ts';
import { SessionContext } from '../../role.tsx';
import { NO_FILTERS, type Filters } from './filters.ts';
import { createListSync, type ChatPage, type ListState, type ListSync } from './list-sync.ts';

/** `version` grows when a live message is about the open chat (`chatId`), which then reloads. */
export function useChatList(chatId: string | undefined) {
  const memberId = useContext(SessionContext)?.memberId;
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [list, setList] = useState<ListState>({ chats: [], count: 0, error: null });
  const [channels, setChannels] = useState<Channel[]>([]);
  const [version, setVersion] = useState(0);
  const sync = useRef<ListSync | undefined>(undefined);
  sync.current ??= createListSync({
    fetchPage: (query) => api<ChatPage>('GET', '/chat/all-chats/', { query }),
    memberId,
    filters,
    onChange: setList,
  });
  const current = sync.current;

  useEffect(() => () => current.stop(), [current]);
  useEffect(() => current.setMemberId(memberId), [current, memberId]);
  useEffect(() => current.setFilters(filters), [current, filters]);
  useEffect(() => {
    api<{ channels: Channel[] }>('GET', '/channels/all/').then((r) => setChannels(r.channels), () => undefined);
  }, []);

  useLiveMessages((message) => {
    const aboutOpenChat =
      message.kind === 'reload' || ((message.kind === 'event' || message.kind === 'change') && (message.chatId === null || message.chatId === chatId));
    if (aboutOpenChat) setVersion((v) => v + 1);
    current.live(message);
  });

  return { filters, setFilters, chats: list.chats, count: list.count, channels, error: list.error, version, loadList: () => current.reload() };
}
