// The Inbox: chats with the public list's filters and paging, a chat's history and every action on it,
// live (new chats, messages and status changes appear without a reload), its keys (`?` lists them) and a search
// whose hits open a chat at the matching message. Texts are rendered as text only.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SearchHit } from '@parley/contracts';
import { EnableNotifications } from '../../alerts.tsx';
import { t } from '../../i18n.ts';
import { plural } from '../../plural.ts';
import { navigate } from '../../router.ts';
import { ErrorLine } from '../../ui.tsx';
import { ChatList, FilterBar } from './chat-list.tsx';
import { ChatView, type ChatCommands } from './chat-view.tsx';
import { PAGE, type Filters } from './filters.ts';
import { SearchBox, SearchResults, useSearch } from './search.tsx';
import { chatAfter, commandFor } from './shortcuts.ts';
import { ShortcutsDialog } from './shortcuts-dialog.tsx';
import { useChatList } from './use-chat-list.ts';

/** `needsHumanCount`: the account's count of chats needing a person (the team alerts keep it live). */
export function InboxPage({ chatId, needsHumanCount }: { chatId: string | undefined; needsHumanCount: number | null }) {
  const { filters, setFilters, chats, count, channels, error, version, loadList } = useChatList(chatId);
  const set = (changes: Partial<Filters>) => setFilters({ ...filters, offset: 0, ...changes });
  const unread = chats.reduce((sum, chat) => sum + chat.unreadCount, 0);
  const chatCommands = useRef<ChatCommands>(null);
  const [helpOpen, setHelpOpen] = useState(false);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (helpOpen || event.defaultPrevented) return;
      const target = event.target instanceof HTMLElement ? event.target : null;
      const command = commandFor({ key: event.key, ctrlKey: event.ctrlKey, metaKey: event.metaKey, altKey: event.altKey, isComposing: event.isComposing, target });
      if (command === null) return;
      if (command === 'next' || command === 'previous') {
        const next = chatAfter(
          chats.map((chat) => chat.id),
          chatId,
          command === 'next' ? 1 : -1,
        );
        if (next !== null) navigate(`/inbox/${next}`);
      } else if (command === 'search') {
        // The search box, when the Inbox has one.
        const box = document.querySelector<HTMLElement>('[role="searchbox"], input[type="search"]');
        if (!box) return;
        box.focus();
      } else if (command === 'help') {
        setHelpOpen(true);
      } else {
        chatCommands.current?.[command]();
      }
      // The key is the command's, not the text of the field it may have focused.
      event.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [chats, chatId, helpOpen]);
  const search = useSearch(filters);
  // The message a search hit opened its chat at (shown while that chat stays open; each click finds it again).
  const [found, setFound] = useState<{ chatId: string; messageId: string; click: number } | null>(null);
  const openHit = (hit: SearchHit) => {
    setFound(hit.messageId === null ? null : { chatId: hit.chatId, messageId: hit.messageId, click: (found?.click ?? 0) + 1 });
    navigate(`/inbox/${hit.chatId}`);
  };
  const foundHere = found !== null && found.chatId === chatId ? found : undefined;
  return (
    <div class={chatId ? 'inbox with-chat' : 'inbox'}>
      <aside class="chat-list">
        <SearchBox search={search} />
        <div class="row views">
          <button type="button" class="view" aria-label="Needs a human" aria-pressed={filters.needsHuman} onClick={() => set({ needsHuman: !filters.needsHuman })}>
            {t('Needs a human')}
          </button>
          <span class="badge count" role="status" aria-label="Needs a human count">
            {needsHumanCount ?? '…'}
          </span>
          <EnableNotifications />
        </div>
        <FilterBar filters={filters} channels={channels} set={set} />
        {search.active && <SearchResults search={search} onOpen={openHit} />}
        {!search.active && (
          <>
            <p class="muted" aria-live="polite">
              {plural(count, 'chat', 'chats')}
              {unread > 0 ? ` · ${unread} ${t('unread')}` : ''}
            </p>
            <ErrorLine error={error} />
            <ChatList chats={chats} chatId={chatId} />
            <div class="row spread">
              <button type="button" aria-label="Newer" disabled={filters.offset === 0} onClick={() => setFilters({ ...filters, offset: Math.max(0, filters.offset - PAGE) })}>
                {t('Newer')}
              </button>
              <span class="muted">
                {count === 0 ? 0 : filters.offset + 1}–{filters.offset + chats.length}
              </span>
              <button type="button" aria-label="Older" disabled={filters.offset + chats.length >= count} onClick={() => setFilters({ ...filters, offset: filters.offset + PAGE })}>
                {t('Older')}
              </button>
            </div>
          </>
        )}
      </aside>
      {chatId ? <ChatView chatId={chatId} version={version} found={foundHere} onChanged={() => void loadList()} commandsRef={chatCommands} /> : <p class="empty">{t('Select a chat')}</p>}
      <ShortcutsDialog open={helpOpen} onClose={() => setHelpOpen(false)} />
    </div>
  );
}
