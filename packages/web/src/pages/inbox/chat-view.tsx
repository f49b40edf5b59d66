// The open chat: its head, its details folded (customer card, assignee, tags), the latest handoff summary, history,
// reply suggestions, note and reply; every action on it.
import type { RefObject } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { InboxChat } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { SessionContext } from '../../role.tsx';
import { ErrorLine } from '../../ui.tsx';
import { CustomerCard } from '../customer-card.tsx';
import { DetailsPanel, useDetailsFold } from './chat-details.tsx';
import { AssignForm, ChatHeader, TagsBar } from './chat-header.tsx';
import { NoteComposer, ReplyComposer } from './composers.tsx';
import { MessageLog } from './message-log.tsx';
import { useStickToEnd } from './stick-to-bottom.ts';
import { Suggestions } from './suggestions.tsx';
import { HISTORY_MAX, useChat, useTeamLists } from './use-chat.ts';

/** What the Inbox's keys do to the open chat (`r`, `n`, `e`, `a`). */
export interface ChatCommands {
  reply: () => void;
  note: () => void;
  done: () => void;
  assignToMe: () => void;
}

/**
 * `commandsRef`: where the chat view puts its commands for the Inbox's keyboard while a chat is shown; `found`: the
 * message a search hit opened the chat at (`click` changes with each click on a hit).
 */
export function ChatView(props: {
  chatId: string;
  onChanged: () => void;
  version: number;
  commandsRef: RefObject<ChatCommands>;
  found?: { messageId: string; click: number } | undefined;
}) {
  const { chatId, onChanged, version, commandsRef, found } = props;
  const session = useContext(SessionContext);
  const { members, savedReplies } = useTeamLists();
  // A search hit may be an older message: the longest history the console gives.
  const { chat, setChat, messages, error, setError, load } = useChat(chatId, version, onChanged, found ? HISTORY_MAX : undefined);
  const [reply, setReply] = useState('');
  const [note, setNote] = useState('');
  const [assignTo, setAssignTo] = useState('');
  const [tag, setTag] = useState('');
  const [sending, setSending] = useState(false);
  const logRef = useRef<HTMLOListElement>(null);
  const replyRef = useRef<HTMLTextAreaElement>(null);
  const noteRef = useRef<HTMLTextAreaElement>(null);
  const details = useDetailsFold();

  useEffect(() => {
    setAssignTo(chat?.assignee?.id ?? '');
  }, [chat?.assignee?.id]);
  // To the newest message when the chat is first shown (an unread chat's history is loaded before it is marked read,
  // and the log only exists once the chat is), and when messages come while the member reads the end.
  // A search hit's message instead, once shown.
  const foundId = found !== undefined && messages.some((message) => message.id === found.messageId) ? found.messageId : undefined;
  const followEnd = useStickToEnd(logRef, chatId, messages.length, chat !== null, foundId === undefined || found === undefined ? undefined : { id: foundId, key: found.click });

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
      followEnd();
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
      followEnd();
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

  // The keys do what the buttons do: `Mark done`, and `Assign` with the member themselves chosen.
  useEffect(() => {
    if (!chat) return;
    commandsRef.current = {
      reply: () => replyRef.current?.focus(),
      note: () => noteRef.current?.focus(),
      done: () => {
        if (!chat.isTriggered) void act(`/chat/status/${chatId}/`, { status: 'done' });
      },
      assignToMe: () => {
        if (session && chat.assignee?.id !== session.memberId) void act(`/chat/assign/${chatId}/`, { memberId: session.memberId });
      },
    };
    return () => {
      commandsRef.current = null;
    };
  });

  if (!chat) return <ErrorLine error={error} />;
  // The latest handoff's summary is pinned above the history (docs/decisions.md, "Handoff summaries").
  const summary = messages.findLast((item) => item.kind === 'summary');
  const asked = messages.findLast((item) => item.kind === 'message' && item.role === 'user')?.id;
  return (
    <section class="chat" aria-label={`Chat with ${chat.dialogName}`}>
      <ChatHeader chat={chat} chatId={chatId} act={act} details={details} />
      <DetailsPanel fold={details}>
        <CustomerCard
          chat={chat}
          onErased={() => {
            void load();
            onChanged();
          }}
        />
        <AssignForm
          chat={chat}
          members={members}
          assignTo={assignTo}
          onSelect={setAssignTo}
          onAssign={() => void act(`/chat/assign/${chatId}/`, { memberId: assignTo || null })}
        />
        <TagsBar chat={chat} tag={tag} onTagInput={setTag} onAdd={addTag} onRemove={removeTag} />
      </DetailsPanel>
      <ErrorLine error={error} />
      {summary && (
        <aside class="handoff-summary" aria-label="Handoff summary">
          <strong>{t('Handoff summary')}</strong>
          <div class="text">{summary.text}</div>
        </aside>
      )}
      <MessageLog chat={chat} messages={messages} logRef={logRef} onRated={load} foundId={foundId} />
      <Suggestions chat={chat} asked={asked} onUse={setReply} />
      <NoteComposer note={note} onInput={setNote} onSubmit={addNote} inputRef={noteRef} />
      <ReplyComposer reply={reply} setReply={setReply} savedReplies={savedReplies} sending={sending} onSend={send} inputRef={replyRef} />
    </section>
  );
}
