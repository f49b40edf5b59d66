// The history keeps to its newest entry: a chat opens at its end, and what arrives while the member reads the end
// shows at once; a member who scrolled up to read older messages is left where they are.
import type { RefObject } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { isNearEnd } from './scroll-end.ts';


/**
 * Scrolls `logRef`'s element to its end when `chatId` changes (once its entries are there) and when `count` changes
 * while the member was at the end. `shown` says whether the log is in the page (it is rendered only once the chat
 * is loaded). `anchor`: an entry to show instead (a search hit's message: its `data-id`, and a `key` that changes with
 * each click on the hit), after which the log stays where it is until the member scrolls back to the end. Returns a
 * function that makes the log follow its end again (the member's own reply).
 */
export function useStickToEnd(
  logRef: RefObject<HTMLElement>,
  chatId: string,
  count: number,
  shown: boolean,
  anchor?: { id: string; key: number } | undefined,
): () => void {
  const atEnd = useRef(true);
  const openedChat = useRef(chatId);
  const anchored = useRef<string | null>(null);
  const anchorKey = anchor === undefined ? null : `${anchor.id} ${anchor.key}`;

  const toEnd = useCallback(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [logRef]);

  useLayoutEffect(() => {
    if (openedChat.current !== chatId) {
      openedChat.current = chatId;
      atEnd.current = true;
    }
    if (anchor !== undefined && anchored.current !== anchorKey) {
      const entry = logRef.current?.querySelector(`[data-id="${CSS.escape(anchor.id)}"]`);
      if (entry) {
        entry.scrollIntoView({ block: 'center' });
        anchored.current = anchorKey;
        atEnd.current = false;
      }
      return;
    }
    if (atEnd.current) toEnd();
  }, [chatId, count, shown, anchorKey, toEnd]);

  // The member's scrolling decides whether the log follows; an image loading at the end keeps it at the end.
  useEffect(() => {
    const log = logRef.current;
    if (!log) return;
    const onScroll = () => {
      atEnd.current = isNearEnd(log);
    };
    const onLoad = () => {
      if (atEnd.current) toEnd();
    };
    log.addEventListener('scroll', onScroll, { passive: true });
    log.addEventListener('load', onLoad, true);
    return () => {
      log.removeEventListener('scroll', onScroll);
      log.removeEventListener('load', onLoad, true);
    };
  }, [logRef, shown, toEnd]);

  return useCallback(() => {
    atEnd.current = true;
    toEnd();
  }, [toEnd]);
}
