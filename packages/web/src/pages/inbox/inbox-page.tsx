// The Inbox: chats with the public list's filters and paging, a chat's history and every action on it,
// live (new chats, messages and status changes appear without a reload). Texts are rendered as text only.
import { EnableNotifications } from '../../alerts.tsx';
import { t } from '../../i18n.ts';
import { plural } from '../../plural.ts';
import { ErrorLine } from '../../ui.tsx';
import { ChatList, FilterBar } from './chat-list.tsx';
import { ChatView } from './chat-view.tsx';
import { PAGE, type Filters } from './filters.ts';
import { useChatList } from './use-chat-list.ts';

export function InboxPage({ chatId }: { chatId: string | undefined }) {
  const { filters, setFilters, chats, count, needsHumanCount, channels, error, version, loadList } = useChatList(chatId);
  const set = (changes: Partial<Filters>) => setFilters({ ...filters, offset: 0, ...changes });
  const unread = chats.reduce((sum, chat) => sum + chat.unreadCount, 0);
  return (
    <div class="inbox">
      <aside class="chat-list">
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
      </aside>
      {chatId ? <ChatView chatId={chatId} version={version} onChanged={() => void loadList()} /> : <p class="empty">{t('Select a chat')}</p>}
    </div>
  );
}
