// Live updates: one EventSource on /console/v1/live (authenticated by the session cookie, no token in the URL).
// Listeners get the chat id of each committed event; a gap (missed events) reaches them as `null`.
import { useEffect, useRef } from 'preact/hooks';

type Listener = (chatId: string | null) => void;
const listeners = new Set<Listener>();
let source: EventSource | undefined;

/** What the stream says, for the team alerts (alerts.tsx): an event with its payload, a change, or that it dropped. */
export interface LivePayload {
  event?: string;
  messages?: { role?: string }[];
}
export type LiveMessage =
  | { kind: 'event'; chatId: string | null; payload: LivePayload | undefined }
  | { kind: 'change'; chatId: string | null }
  | { kind: 'reload' }
  | { kind: 'dropped' };
const messageListeners = new Set<(message: LiveMessage) => void>();
const tell = (message: LiveMessage) => {
  for (const listener of messageListeners) listener(message);
};

function connect(): void {
  if (source) return;
  source = new EventSource('/console/v1/live');
  const onMessage = (message: Event) => {
    let data: { chatId: string | null; payload?: LivePayload };
    try {
      data = JSON.parse((message as MessageEvent<string>).data) as typeof data;
    } catch {
      data = { chatId: null };
    }
    for (const listener of listeners) listener(data.chatId);
    tell(message.type === 'event' ? { kind: 'event', chatId: data.chatId, payload: data.payload } : { kind: 'change', chatId: data.chatId });
  };
  // Committed events, and changes only the console sees (assignment, notes, read state) made by any member.
  source.addEventListener('event', onMessage);
  source.addEventListener('change', onMessage);
  // After a reconnect or a gap, views reload what they show.
  const reload = () => {
    for (const listener of listeners) listener(null);
    tell({ kind: 'reload' });
  };
  source.addEventListener('gap', reload);
  source.addEventListener('ready', reload);
  // The server ended the stream (a member whose access changed) or the network dropped: the browser reconnects.
  source.addEventListener('error', () => tell({ kind: 'dropped' }));
}

function disconnectIfUnused(): void {
  if (listeners.size === 0 && messageListeners.size === 0) {
    source?.close();
    source = undefined;
  }
}

/**
 * Calls `onMessage` for everything the live stream says while the component is mounted; keeps the stream open
 * meanwhile (while it is, the member counts as online: alert e-mails wait for no one).
 */
export function useLiveMessages(onMessage: (message: LiveMessage) => void): void {
  const latest = useRef(onMessage);
  latest.current = onMessage;
  useEffect(() => {
    const listener = (message: LiveMessage) => latest.current(message);
    messageListeners.add(listener);
    connect();
    return () => {
      messageListeners.delete(listener);
      disconnectIfUnused();
    };
  }, []);
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
      disconnectIfUnused();
    };
  }, []);
}
