// The open chat: its head, customer card, assignee, tags, history, note and reply; every action on it.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { InboxChat } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { ErrorLine } from '../../ui.tsx';
import { CustomerCard } from '../customer-card.tsx';
import { AssignForm, ChatHeader, TagsBar } from './chat-header.tsx';
import { NoteComposer, ReplyComposer } from './composers.tsx';
import { MessageLog } from './message-log.tsx';
import { useChat, useTeamLists } from './use-chat.ts';

export function ChatView({ chatId, onChanged, version }: { chatId: string; onChanged: () => void; version: number }) {
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
