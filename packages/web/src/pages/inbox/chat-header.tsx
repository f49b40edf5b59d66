// The open chat's head: its name, channel and states with their buttons, whom it is assigned to, and its tags.
import type { InboxChat, Member } from '@parley/contracts';
import { t } from '../../i18n.ts';
import { Link } from '../../ui.tsx';
import { kindLabel } from '../channels.tsx';
import { DetailsToggle, type DetailsFold } from './chat-details.tsx';

export type ChatAction = (path: string, body?: unknown) => Promise<void>;

/**
 * The chat's name, channel, states, assignee and tags in one line, the buttons that switch each state, and the one
 * that unfolds the details (on a phone, also the way back to the list).
 */
export function ChatHeader({ chat, chatId, act, details }: { chat: InboxChat; chatId: string; act: ChatAction; details: DetailsFold }) {
  return (
    <header class="chat-head">
      <div class="chat-title">
        <h2>{chat.dialogName}</h2>
        <p class="muted">
          {chat.channelSettingsName ?? ''} · {kindLabel(chat.channelName)}
          {chat.needsHuman ? ` · ${t('needs a human')}` : ''}
          {chat.paused ? ` · ${t('paused')}` : ''}
          {chat.isTriggered ? ` · ${t('done')}` : ''}
          {chat.banned ? ` · ${t('banned')}` : ''}
          {` · ${chat.assignee ? `${t('Assigned to')} ${chat.assignee.name}` : t('Unassigned')}`}
          {chat.userTags.map(({ tags }) => ` #${tags.name}`).join('')}
        </p>
      </div>
      <div class="row wrap">
        <span class="back">
          <Link href="/inbox" label="All chats">
            ← {t('Chats')}
          </Link>
        </span>
        {chat.paused ? (
          <button type="button" aria-label="Resume agent" onClick={() => act(`/chat/resume-chat/${chatId}/`)}>
            {t('Resume agent')}
          </button>
        ) : (
          <button type="button" aria-label="Pause agent" onClick={() => act(`/chat/pause-chat/${chatId}/`)}>
            {t('Pause agent')}
          </button>
        )}
        {chat.isTriggered ? (
          <button type="button" aria-label="Mark not done" onClick={() => act(`/chat/status/${chatId}/`, { status: 'not_done' })}>
            {t('Mark not done')}
          </button>
        ) : (
          <button type="button" aria-label="Mark done" onClick={() => act(`/chat/status/${chatId}/`, { status: 'done' })}>
            {t('Mark done')}
          </button>
        )}
        {chat.banned ? (
          <button type="button" aria-label="Unban" onClick={() => act(`/chat/unban/${chatId}/`)}>
            {t('Unban')}
          </button>
        ) : (
          <button type="button" aria-label="Ban" onClick={() => act(`/chat/ban/${chatId}/`)}>
            {t('Ban')}
          </button>
        )}
        <button type="button" aria-label="Mark unread" onClick={() => act(`/chat/unread/${chatId}/`)}>
          {t('Mark unread')}
        </button>
        <DetailsToggle fold={details} />
      </div>
    </header>
  );
}

/**
 * Whom the chat is assigned to. The choice is kept by the chat view, so that it follows the chat's assignee after
 * each load.
 */
export function AssignForm(props: { chat: InboxChat; members: Member[]; assignTo: string; onSelect: (memberId: string) => void; onAssign: () => void }) {
  const { chat, members, assignTo, onSelect, onAssign } = props;
  return (
    <form
      class="row assign"
      onSubmit={(event) => {
        event.preventDefault();
        onAssign();
      }}
    >
      <label class="field inline">
        <span>{t('Assigned to')}</span>
        <select aria-label="Assign to" value={assignTo} onChange={(e) => onSelect(e.currentTarget.value)}>
          <option value="">{t('Nobody')}</option>
          {members.map((member) => (
            <option key={member.id} value={member.id}>
              {member.name}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" aria-label="Assign">
        {t('Assign')}
      </button>
      <span class="muted">{chat.assignee ? chat.assignee.name : t('Unassigned')}</span>
    </form>
  );
}

/** The chat's tags, each removable, and the form that adds one; the tag being typed is kept by the chat view. */
export function TagsBar(props: { chat: InboxChat; tag: string; onTagInput: (tag: string) => void; onAdd: (event: Event) => void; onRemove: (name: string) => void }) {
  const { chat, tag, onTagInput, onAdd, onRemove } = props;
  return (
    <div class="tags row wrap" aria-label="Tags">
      {chat.userTags.map(({ tags }) => (
        <span class="tag" key={tags.id}>
          {tags.name}
          <button type="button" class="small" aria-label={`Remove tag ${tags.name}`} onClick={() => onRemove(tags.name)}>
            ×
          </button>
        </span>
      ))}
      <form class="row" onSubmit={onAdd}>
        <input aria-label="Tag" placeholder={t('Tag')} maxLength={100} value={tag} onInput={(e) => onTagInput(e.currentTarget.value)} />
        <button type="submit" aria-label="Add tag">
          {t('Add tag')}
        </button>
      </form>
    </div>
  );
}
