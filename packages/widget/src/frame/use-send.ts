// Sending: a message with its files (checked against the session's limits first), the composer's submit, and a
// new conversation. `sendRef` holds this render's send, for the listeners that send (the host page's `send`,
// messages kept until the conversation is open).
import { newConversation, send } from './api.ts';
import { formatSize } from './messages.ts';
import type { FrameState } from './use-frame-state.ts';

export function useSend(frame: FrameState) {
  const { session, conversationId, sending, draft, files, tokenRef, sendRef, fileRef, inputRef, add } = frame;
  const { setConversations, setConversationId, setError, setSending, setDraft, setFiles } = frame;

  const startNewConversation = async () => {
    if (!session) return;
    try {
      const { conversation } = await newConversation(tokenRef.current);
      setConversations((list) => (list.some((c) => c.id === conversation.id) ? list : [...list, conversation]));
      setConversationId(conversation.id);
      setError(null);
      inputRef.current?.focus();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };

  sendRef.current = async (text: string, attached: File[]) => {
    if (!session || !conversationId || sending) return false;
    if (text.trim() === '' && attached.length === 0) return false;
    const limits = session.limits;
    if ([...text].length > limits.maxMessageLength) {
      setError(`Message too long: at most ${limits.maxMessageLength} characters`);
      return false;
    }
    if (attached.length > limits.maxFiles) {
      setError(`At most ${limits.maxFiles} files per message`);
      return false;
    }
    const big = attached.find((file) => file.size > limits.maxFileBytes);
    if (big) {
      setError(`File too large: ${big.name} (at most ${formatSize(limits.maxFileBytes)})`);
      return false;
    }
    setSending(true);
    setError(null);
    try {
      const result = await send(tokenRef.current, conversationId, text, attached);
      // null: the server ignored it (a banned visitor); it is shown here as sent, as it would be anywhere else.
      add([result.message ?? { id: `local-${Date.now()}`, role: 'user', from: 'visitor', name: null, text, attachments: [], createdAt: new Date().toISOString() }], true);
      return true;
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      return false;
    } finally {
      setSending(false);
    }
  };

  const submit = async (event?: Event) => {
    event?.preventDefault();
    if (await sendRef.current(draft, files)) {
      setDraft('');
      setFiles([]);
      if (fileRef.current) fileRef.current.value = '';
      inputRef.current?.focus();
    }
  };

  return { startNewConversation, submit };
}
