// The Inbox: chats with the public list's filters and paging, a chat's history and every action on it,
// live (new chats, messages and status changes appear without a reload). Texts are rendered as text only.
import type { Ref } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { CannedResponse, Channel, ChannelKind, InboxChat, InboxListChat, InboxMessage, InboxNote, Member } from '@parley/contracts';
import { EnableNotifications } from '../alerts.tsx';
import { api, errorText } from '../api.ts';
import { t } from '../i18n.ts';
import { plural } from '../plural.ts';
import { useLive } from '../live.ts';
import { useLoadOrder } from '../load-order.ts';
import { navigate } from '../router.ts';
import { ErrorLine, formatTime } from '../ui.tsx';
import { KINDS, kindLabel } from './channels.tsx';
import { CustomerCard } from './customer-card.tsx';

const PAGE = 50;

interface Filters {
  channelId: string;
  channelName: string;
  tag: string;
  done: boolean;
  unread: boolean;
  /** The `Needs a human` view: chats the agent handed to the team. */
  needsHuman: boolean;
  /** '' (all), `me` or `none`. */
  assignee: string;
  offset: number;
}

/** The `/word` being typed at the end of the reply, if any: what the saved-reply picker matches. */
function shortCodeTyped(reply: string): string | undefined {
  return /(?:^|\s)\/([A-Za-z0-9_-]*)$/.exec(reply)?.[1];
}

/** The saved replies whose short code starts with what is typed after `/`: a listbox of options to insert. */
function SavedReplyPicker({ replies, typed, onPick }: { replies: CannedResponse[]; typed: string; onPick: (reply: CannedResponse) => void }) {
  const matching = replies.filter((reply) => reply.shortCode.toLowerCase().startsWith(typed.toLowerCase()));
  if (matching.length === 0) return null;
  return (
    <ul class="picker" role="listbox" aria-label="Saved replies">
      {matching.map((reply) => (
        <li
          key={reply.id}
          role="option"
          aria-selected="false"
          aria-label={`/${reply.shortCode}`}
          tabIndex={0}
          onClick={() => onPick(reply)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              onPick(reply);
            }
          }}
        >
          <strong>/{reply.shortCode}</strong> <span class="muted">{reply.text}</span>
        </li>
      ))}
    </ul>
  );
}

function Attachments({ message }: { message: InboxMessage }) {
  if (message.attachments.length === 0) return null;
  return (
    <div class="attachments">
      {message.attachments.map((file) => {
        if (file.contentType.startsWith('image/')) {
          return (
            <a key={file.url} href={file.url} target="_blank" rel="noopener noreferrer">
              <img src={file.url} alt={file.name} loading="lazy" />
            </a>
          );
        }
        if (file.contentType.startsWith('audio/')) return <audio key={file.url} controls src={file.url} aria-label={file.name} />;
        return (
          <a key={file.url} href={file.url} target="_blank" rel="noopener noreferrer" download={file.name}>
            {file.name}
          </a>
        );
      })}
    </div>
  );
}

function AgentReplyActions({ message, onRated }: { message: InboxMessage; onRated: () => void }) {
  const [correcting, setCorrecting] = useState(false);
  const [text, setText] = useState(message.text);
  const [error, setError] = useState<string | null>(null);
  if (message.rating === 'liked') return <span class="rating">{t('Marked correct')}</span>;
  if (message.rating === 'disliked') return <span class="rating">{t('Corrected')}</span>;

  const markCorrect = async () => {
    try {
      await api('POST', `/chat/answer/${message.id}/correct/`);
      onRated();
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  const saveCorrection = async (event: Event) => {
    event.preventDefault();
    try {
      await api('POST', `/chat/answer/${message.id}/correction/`, { body: { text } });
      setCorrecting(false);
      onRated();
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  return (
    <div class="reply-actions">
      {!correcting && (
        <>
          {/* A fallback is no answer to approve; correcting it teaches the answer the agent lacked. */}
          {message.agentOutcome === 'answered' && (
            <button type="button" class="small" aria-label="Mark correct" onClick={markCorrect}>
              {t('Mark correct')}
            </button>
          )}
          <button type="button" class="small" aria-label="Correct the answer" onClick={() => setCorrecting(true)}>
            {t('Correct the answer')}
          </button>
        </>
      )}
      {correcting && (
        <form onSubmit={saveCorrection}>
          <label class="field">
            <span>{t('Correct answer')}</span>
            <textarea aria-label="Correct answer" required rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          </label>
          <div class="row">
            <button type="submit" aria-label="Save to knowledge base">
              {t('Save to knowledge base')}
            </button>
            <button type="button" aria-label="Cancel" onClick={() => setCorrecting(false)}>
              {t('Cancel')}
            </button>
          </div>
        </form>
      )}
      <ErrorLine error={error} />
    </div>
  );
}

function senderOf(message: InboxMessage, chat: InboxChat): string {
  if (message.role === 'user') return message.senderName ?? chat.dialogName;
  return message.senderName ?? t('Agent');
}

/**
 * One chat and its history, loaded together. Only the newest load is shown: another chat opened meanwhile, or a
 * later reload, answers instead. Opening a chat reads it, once per opening ("Mark unread" flags it again).
 */
function useChat(chatId: string, version: number, onChanged: () => void) {
  const [chat, setChat] = useState<InboxChat | null>(null);
  const [messages, setMessages] = useState<(InboxMessage | InboxNote)[]>([]);
  const [error, setError] = useState<string | null>(null);
  const markedRead = useRef<string | null>(null);
  // The list's reload of the current filters, whichever render `load` was made in.
  const changed = useRef(onChanged);
  changed.current = onChanged;

  const order = useLoadOrder();
  const load = useCallback(async () => {
    const current = order.begin();
    try {
      const [info, history] = await Promise.all([
        api<InboxChat>('GET', `/chat/info/${chatId}/`),
        api<{ messages: (InboxMessage | InboxNote)[] }>('GET', `/chat/messages/${chatId}/`),
      ]);
      if (!order.isNewest(current)) return;
      setMessages(history.messages);
      setError(null);
      if (markedRead.current !== chatId && (info.unreadCount > 0 || info.customUnread)) {
        markedRead.current = chatId;
        const read = await api<InboxChat>('POST', `/chat/read/${chatId}/`);
        if (order.isNewest(current)) setChat(read);
        changed.current();
      } else {
        markedRead.current = chatId;
        setChat(info);
      }
    } catch (failure) {
      if (order.isNewest(current)) setError(errorText(failure));
    }
  }, [chatId]);

  useEffect(() => {
    setChat(null);
    setMessages([]);
  }, [chatId]);
  useEffect(() => {
    void load();
  }, [chatId, version, load]);
  return { chat, setChat, messages, error, setError, load };
}

/** The account's active members to assign chats to, and its saved replies; loaded once, when the chat view opens. */
function useTeamLists() {
  const [members, setMembers] = useState<Member[]>([]);
  const [savedReplies, setSavedReplies] = useState<CannedResponse[]>([]);
  useEffect(() => {
    api<{ members: Member[] }>('GET', '/members/').then((r) => setMembers(r.members.filter((m) => m.status === 'active')), () => undefined);
    api<{ cannedResponses: CannedResponse[] }>('GET', '/canned-responses/').then((r) => setSavedReplies(r.cannedResponses), () => undefined);
  }, []);
  return { members, savedReplies };
}

type ChatAction = (path: string, body?: unknown) => Promise<void>;

/** The chat's name, channel and states, and the buttons that switch each state. */
function ChatHeader({ chat, chatId, act }: { chat: InboxChat; chatId: string; act: ChatAction }) {
  return (
    <header class="chat-head">
      <div>
        <h2>{chat.dialogName}</h2>
        <p class="muted">
          {chat.channelSettingsName ?? ''} · {kindLabel(chat.channelName)}
          {chat.needsHuman ? ` · ${t('needs a human')}` : ''}
          {chat.paused ? ` · ${t('paused')}` : ''}
          {chat.isTriggered ? ` · ${t('done')}` : ''}
          {chat.banned ? ` · ${t('banned')}` : ''}
        </p>
      </div>
      <div class="row wrap">
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
      </div>
    </header>
  );
}

/**
 * Whom the chat is assigned to. The choice is kept by the chat view, so that it follows the chat's assignee after
 * each load.
 */
function AssignForm(props: { chat: InboxChat; members: Member[]; assignTo: string; onSelect: (memberId: string) => void; onAssign: () => void }) {
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
function TagsBar(props: { chat: InboxChat; tag: string; onTagInput: (tag: string) => void; onAdd: (event: Event) => void; onRemove: (name: string) => void }) {
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

/**
 * The history: messages and private notes in order. The chat view holds `logRef` because it scrolls the log to
 * the newest entry when their number changes.
 */
function MessageLog(props: { chat: InboxChat; messages: (InboxMessage | InboxNote)[]; logRef: Ref<HTMLOListElement>; onRated: () => void }) {
  const { chat, messages, logRef, onRated } = props;
  return (
    <ol class="messages" role="log" aria-label="Messages" ref={logRef}>
      {messages.map((message) =>
        message.kind === 'note' ? (
          <li key={message.id} class="bubble note" aria-label={`Note by ${message.author.name}`}>
            <div class="meta">
              {t('Private note')} · {message.author.name} · {formatTime(message.createdAt)}
            </div>
            <div class="text">{message.text}</div>
          </li>
        ) : (
          <li key={message.id} class={`bubble ${message.role}`}>
            <div class="meta">
              {senderOf(message, chat)} · {formatTime(message.createdAt)}
            </div>
            <div class="text">{message.text}</div>
            <Attachments message={message} />
            {message.agentOutcome !== null && message.agentOutcome !== 'handoff' && <AgentReplyActions message={message} onRated={onRated} />}
          </li>
        ),
      )}
    </ol>
  );
}

/** The private-note form; its draft is kept by the chat view. */
function NoteComposer({ note, onInput, onSubmit }: { note: string; onInput: (note: string) => void; onSubmit: (event: Event) => void }) {
  return (
    <form class="composer note-composer" onSubmit={onSubmit}>
      <textarea aria-label="Note" placeholder={t('Private note: only the team sees it')} rows={1} maxLength={10_000} value={note} onInput={(e) => onInput(e.currentTarget.value)} />
      <button type="submit" aria-label="Add note">
        {t('Add note')}
      </button>
    </form>
  );
}

/**
 * The reply form, and the saved-reply picker above it while a `/shortCode` is being typed; the draft is kept by
 * the chat view. Ctrl+Enter (Cmd+Enter) sends.
 */
function ReplyComposer(props: { reply: string; setReply: (reply: string) => void; savedReplies: CannedResponse[]; sending: boolean; onSend: (event: Event) => void }) {
  const { reply, setReply, savedReplies, sending, onSend } = props;
  const pickSavedReply = (saved: CannedResponse) => {
    setReply(reply.replace(/\/[A-Za-z0-9_-]*$/, saved.text));
  };
  const typedCode = shortCodeTyped(reply);
  return (
    <>
      {typedCode !== undefined && <SavedReplyPicker replies={savedReplies} typed={typedCode} onPick={pickSavedReply} />}
      <form class="composer" onSubmit={onSend}>
        <textarea
          aria-label="Reply"
          placeholder={t('Reply')}
          rows={2}
          value={reply}
          onInput={(e) => setReply(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) onSend(e);
          }}
        />
        <button type="submit" aria-label="Send" disabled={sending}>
          {t('Send')}
        </button>
      </form>
    </>
  );
}

function ChatView({ chatId, onChanged, version }: { chatId: string; onChanged: () => void; version: number }) {
  const { members, savedReplies } = useTeamLists();
  const { chat, setChat, messages, error, setError, load } = useChat(chatId, version, onChanged);
  const [reply, setReply] = useState('');
  const [note, setNote] = useState('');
  const [assignTo, setAssignTo] = useState('');
  const [tag, setTag] = useState('');
  const [sending, setSending] = useState(false);
  const logRef = useRef<HTMLOListElement>(null);

  useEffect(() => {
    setAssignTo(chat?.assignee?.id ?? '');
  }, [chat?.assignee?.id]);
  // To the newest message when messages come, and when the chat is first shown: an unread chat's history is loaded
  // before it is marked read, and the log only exists once the chat is.
  const shown = chat !== null;
  useEffect(() => {
    logRef.current?.lastElementChild?.scrollIntoView({ block: 'end' });
  }, [messages.length, shown]);

  const act = async (path: string, body?: unknown) => {
    setError(null);
    try {
      const result = await api<InboxChat | { id: string }>('POST', path, body === undefined ? {} : { body });
      if ('uniqueId' in result) setChat(result);
      else await load();
      onChanged();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  const send = async (event: Event) => {
    event.preventDefault();
    if (!reply.trim()) return;
    setSending(true);
    setError(null);
    try {
      await api('POST', `/chat/messages/${chatId}/`, { body: { text: reply } });
      setReply('');
      await load();
      onChanged();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setSending(false);
    }
  };

  const addNote = async (event: Event) => {
    event.preventDefault();
    if (!note.trim()) return;
    setError(null);
    try {
      await api('POST', `/chat/notes/${chatId}/`, { body: { text: note } });
      setNote('');
      await load();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  const addTag = async (event: Event) => {
    event.preventDefault();
    if (!tag.trim()) return;
    await act(`/chat/tags/${chatId}/`, { name: tag.trim() });
    setTag('');
  };
  const removeTag = async (name: string) => {
    setError(null);
    try {
      setChat(await api<InboxChat>('DELETE', `/chat/tags/${chatId}/${encodeURIComponent(name)}/`));
      onChanged();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  if (!chat) return <ErrorLine error={error} />;
  return (
    <section class="chat" aria-label={`Chat with ${chat.dialogName}`}>
      <ChatHeader chat={chat} chatId={chatId} act={act} />
      <CustomerCard chat={chat} />
      <AssignForm
        chat={chat}
        members={members}
        assignTo={assignTo}
        onSelect={setAssignTo}
        onAssign={() => void act(`/chat/assign/${chatId}/`, { memberId: assignTo || null })}
      />
      <TagsBar chat={chat} tag={tag} onTagInput={setTag} onAdd={addTag} onRemove={removeTag} />
      <ErrorLine error={error} />
      <MessageLog chat={chat} messages={messages} logRef={logRef} onRated={load} />
      <NoteComposer note={note} onInput={setNote} onSubmit={addNote} />
      <ReplyComposer reply={reply} setReply={setReply} savedReplies={savedReplies} sending={sending} onSend={send} />
    </section>
  );
}

/** The list's filters; a change starts again from the first page. */
function FilterBar({ filters, channels, set }: { filters: Filters; channels: Channel[]; set: (changes: Partial<Filters>) => void }) {
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

/** The chats of the current page; the open one is marked, and a click opens another. */
function ChatList({ chats, chatId }: { chats: InboxListChat[]; chatId: string | undefined }) {
  return (
    <ul aria-label="Chats">
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

export function InboxPage({ chatId }: { chatId: string | undefined }) {
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
