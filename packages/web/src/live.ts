// Live updates: one EventSource on /console/v1/live (authenticated by the session cookie, no token in the URL),
// its messages parsed by live-messages.ts and told to every listener while any is mounted. The stream's messages have
// ids, so the browser's reconnect sends Last-Event-ID and gets what it missed: no reload then.
import { useEffect, useRef } from 'preact/hooks';
import { parseLiveMessage, type LiveMessage } from './live-messages.ts';

export type { LiveMessage, LivePayload } from './live-messages.ts';

const messageListeners = new Set<(message: LiveMessage) => void>();
let source: EventSource | undefined;

const tell = (message: LiveMessage) => {
  for (const listener of messageListeners) listener(message);
};

function connect(): void {
  if (source) return;
  source = new EventSource('/console/v1/live');
  const onMessage = (event: Event) => {
    const message = parseLiveMessage(event.type, String((event as MessageEvent<unknown>).data ?? ''));
    if (message) tell(message);
  };
  // Committed events, and changes only the console sees (assignment, notes, read state) made by any member; after a
  // gap or a new stream (`ready` not resumed, as after a reconnect the server could not resume), views reload.
  for (const name of ['event', 'change', 'gap', 'ready']) source.addEventListener(name, onMessage);
  // The server ended the stream (a member whose access changed) or the network dropped: the browser reconnects.
  source.addEventListener('error', () => tell({ kind: 'dropped' }));
}

function disconnectIfUnused(): void {
  if (messageListeners.size === 0) {
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
