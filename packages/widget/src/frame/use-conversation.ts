// The open conversation: its history, then its live stream; the typing indicator's limit; the log kept scrolled to
// its newest message.
import { useEffect } from 'preact/hooks';
import { history } from './api.ts';
import { toHost } from './host.ts';
import { connectLive } from './live.ts';
import { TYPING_MAX_MS } from './messages.ts';
import type { FrameState } from './use-frame-state.ts';

export function useConversation(frame: FrameState): void {
  const { session, conversationId, messagesRef, tokenRef, stateRef, readyRef, sendRef, pendingSends, add, keepState } = frame;
  const { setMessages, setError, setTyping, setStatus, setRefusal } = frame;
  // The open conversation: its history, then its live stream (resuming from its last message on reconnects).
  useEffect(() => {
    if (!session || !conversationId) return;
    let stop = () => {};
    let cancelled = false;
    messagesRef.current = [];
    setMessages([]);
    frame.setCsat(null);
    frame.setCsatPending(null);
    const begin = async () => {
      try {
        const past = await history(tokenRef.current, conversationId);
        if (cancelled) return;
        // Nothing known seen (a state kept before unread counts): what was there is not news.
        const state = stateRef.current;
        const last = past.messages.at(-1);
        if (state && state.seen === undefined && last) keepState({ ...state, seen: last.createdAt });
        add(past.messages, false);
      } catch (failure) {
        setError(failure instanceof Error ? failure.message : String(failure));
      }
      if (cancelled) return;
      readyRef.current = true;
      for (const text of pendingSends.current.splice(0)) await sendRef.current(text, []);
      stop = connectLive({
        token: () => tokenRef.current,
        conversation: conversationId,
        lastMessageId: () => messagesRef.current.filter((message) => !message.id.startsWith('local-')).at(-1)?.id,
        onMessage: (message) => {
          if (message.from !== 'visitor') setTyping(false);
          add([message], true);
        },
        onTyping: setTyping,
        onCsat: frame.setCsatPending,
        onStatus: setStatus,
        onRefused: (_status, message) => {
          setRefusal(message);
          toHost({ parley: 1, type: 'refused', message });
        },
      });
    };
    void begin();
    return () => {
      cancelled = true;
      readyRef.current = false;
      setTyping(false);
      stop();
    };
  }, [session, conversationId]);
}

/** A reply job that died without a word: the indicator does not stay forever. */
export function useTypingLimit({ typing, setTyping }: FrameState): void {
  useEffect(() => {
    if (!typing) return;
    const timer = setTimeout(() => setTyping(false), TYPING_MAX_MS);
    return () => clearTimeout(timer);
  }, [typing]);
}

export function useScrollToEnd({ messages, logRef }: FrameState): void {
  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [messages]);
}
