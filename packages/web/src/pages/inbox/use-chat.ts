// The open chat's data: the chat and its history (reloaded on demand), and the team's members and saved replies.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { CannedResponse, InboxAction, InboxChat, InboxMessage, InboxNote, InboxSummary, Member } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { useLoadOrder } from '../../load-order.ts';

/**
 * One chat and its history, loaded together. Only the newest load is shown: another chat opened meanwhile, or a
 * later reload, answers instead. Opening a chat reads it, once per opening ("Mark unread" flags it again).
 */
/** The most history items the console gives at once (`limit` of the history). */
export const HISTORY_MAX = 1000;

/** `limit`: the history's most recent items to load (the console's default when undefined). */
export function useChat(chatId: string, version: number, onChanged: () => void, limit?: number) {
  const [chat, setChat] = useState<InboxChat | null>(null);
  const [messages, setMessages] = useState<(InboxMessage | InboxNote | InboxSummary | InboxAction)[]>([]);
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
        api<{ messages: (InboxMessage | InboxNote | InboxSummary | InboxAction)[] }>('GET', `/chat/messages/${chatId}/`, limit === undefined ? {} : { query: { limit } }),
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
  }, [chatId, limit]);

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
export function useTeamLists() {
  const [members, setMembers] = useState<Member[]>([]);
  const [savedReplies, setSavedReplies] = useState<CannedResponse[]>([]);
  useEffect(() => {
    api<{ members: Member[] }>('GET', '/members/').then((r) => setMembers(r.members.filter((m) => m.status === 'active')), () => undefined);
    api<{ cannedResponses: CannedResponse[] }>('GET', '/canned-responses/').then((r) => setSavedReplies(r.cannedResponses), () => undefined);
  }, []);
  return { members, savedReplies };
}
