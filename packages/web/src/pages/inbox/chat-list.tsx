// The list side of the Inbox: the filters and the chats of the current page.
import { useEffect, useRef } from 'preact/hooks';
import type { Channel, ChannelKind, InboxListChat } from '@parley/contracts';
import { t } from '../../i18n.ts';
import { navigate } from '../../router.ts';
import { formatTime } from '../../ui.tsx';
import { KINDS, kindLabel } from '../channels.tsx';
import type { Filters } from './filters.ts';

/** The list's filters; a change starts again from the first page. */
export function FilterBar({ filters, channels, set }: { filters: Filters; channels: Channel[]; set: (changes: Partial<Filters>) => void }) {
  return (
    <div class="filters">
      <select aria-label="Assignee" value={filters.assignee} onChange={(e) => set({ assignee: e.currentTarget.value })}>
        <option value="">{t('All')}</option>
        <option value="me">{t('Mine')}</option>
        <option value="none">{t('Unassigned')}</option>
      </select>
      <select aria-label="Channel" value={filters.channelId} onChange={(e) => set({ channelId: e.currentTarget.value })}>
        <option value="">{t('All channels')}</option>
        {channels.map((channel) => (
          <option key={channel.id} value={channel.id}>
            {channel.name}
          </option>
        ))}
      </select>
      <select aria-label="Kind" value={filters.channelName} onChange={(e) => set({ channelName: e.currentTarget.value as ChannelKind | '' })}>
        <option value="">{t('All kinds')}</option>
        {KINDS.map((k) => (
          <option key={k.kind} value={k.kind}>
            {k.label}
          </option>
        ))}
      </select>
      <input aria-label="Tags filter" placeholder={t('Tags')} value={filters.tag} onChange={(e) => set({ tag: e.currentTarget.value })} />
      <label class="check">
        <input type="checkbox" aria-label="Task done only" checked={filters.done} onChange={(e) => set({ done: e.currentTarget.checked })} />
        <span>{t('Task done only')}</span>
      </label>
      <label class="check">
        <input type="checkbox" aria-label="Unread only" checked={filters.unread} onChange={(e) => set({ unread: e.currentTarget.checked })} />
        <span>{t('Unread only')}</span>
      </label>
    </div>
  );
}

/** The chats of the current page; the open one is marked (and kept in view: `j`/`k` move it), and a click opens another. */
export function ChatList({ chats, chatId }: { chats: InboxListChat[]; chatId: string | undefined }) {
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    list.current?.querySelector('[aria-current="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [chatId]);
  return (
    <ul aria-label="Chats" ref={list}>
      {chats.length === 0 && <li class="muted">{t('No chats')}</li>}
      {chats.map((chat) => {
        const isUnread = chat.unreadCount > 0 || chat.customUnread;
        return (
          <li key={chat.id} class={chat.id === chatId ? 'selected' : ''}>
            <button type="button" class={`chat-item${isUnread ? ' unread' : ''}`} aria-current={chat.id === chatId ? 'true' : undefined} onClick={() => navigate(`/inbox/${chat.id}`)}>
              <span class="name">{chat.dialogName}</span>
              {isUnread && (
                <span class="badge" aria-label={`${chat.unreadCount} unread`}>
                  {chat.unreadCount > 0 ? chat.unreadCount : '•'}
                </span>
              )}
              <span class="preview">{chat.text}</span>
              <span class="muted small">
                {chat.channelSettingsName ?? kindLabel(chat.channelName)} · {formatTime(chat.lastMessageDate)}
                {chat.needsHuman ? ` · ${t('needs a human')}` : ''}
                {chat.paused ? ` · ${t('paused')}` : ''}
                {chat.isTriggered ? ` · ${t('done')}` : ''}
                {chat.assignee ? ` · ${chat.assignee.name}` : ''}
              </span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
