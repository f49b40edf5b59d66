// Live updates: one EventSource on /console/v1/live (authenticated by the session cookie, no token in the URL).
// Listeners get the chat id of each committed event; a gap (missed events) reaches them as `null`.
import { useEffect, useRef } from 'preact/hooks';

type Listener = (chatId: string | null) => void;
const listeners = new Set<Listener>();
let source: EventSource | undefined;

function connect(): void {
  if (source) return;
  source = new EventSource('/console/v1/live');
  const onMessage = (message: Event) => {
    let chatId: string | null;
    try {
      chatId = (JSON.parse((message as MessageEvent<string>).data) as { chatId: string | null }).chatId;
    } catch {
      chatId = null;
    }
    for (const listener of listeners) listener(chatId);
  };
  // Committed events, and changes only the console sees (assignment, notes, read state) made by any member.
  source.addEventListener('event', onMessage);
  source.addEventListener('change', onMessage);
  // After a reconnect or a gap, views reload what they show.
  const reload = () => {
    for (const listener of listeners) listener(null);
  };
  source.addEventListener('gap', reload);
  source.addEventListener('ready', reload);
}

/** Calls `onChange` for every live event while the component is mounted. */
export function useLive(onChange: Listener): void {
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    const listener: Listener = (chatId) => latest.current(chatId);
    listeners.add(listener);
    connect();
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) {
        source?.close();
        source = undefined;
      }
    };
  }, []);
}
