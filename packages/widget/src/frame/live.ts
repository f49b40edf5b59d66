// The live stream: one WebSocket, re-opened with growing delays after it drops, resuming from the last message
// the frame has (the server sends what came meanwhile). The frame pings; no pong in time closes and reconnects.
import type { WidgetMessage, WidgetServerFrame } from '@parley/contracts';

const PING_MS = 20_000;
const PONG_TIMEOUT_MS = 10_000;
const MAX_DELAY_MS = 10_000;

export interface LiveOptions {
  token: () => string;
  conversation: string;
  lastMessageId: () => string | undefined;
  onMessage: (message: WidgetMessage) => void;
  /** The agent started or stopped preparing a reply. */
  onTyping: (typing: boolean) => void;
  /** A conversation of the chat ended unrated: ask `How did we do?` about it. */
  onCsat?: (conversationId: string) => void;
  onStatus: (status: 'connecting' | 'live' | 'reconnecting') => void;
  /** The token was refused (401/403): the session must start again. */
  onRefused: (statusCode: number, message: string) => void;
}

export function connectLive(options: LiveOptions): () => void {
  let socket: WebSocket | undefined;
  let stopped = false;
  let attempt = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let ping: ReturnType<typeof setInterval> | undefined;
  let pongDue: ReturnType<typeof setTimeout> | undefined;

  const clearTimers = () => {
    clearInterval(ping);
    clearTimeout(pongDue);
  };

  const open = () => {
    if (stopped) return;
    options.onStatus(attempt === 0 ? 'connecting' : 'reconnecting');
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/widget/v1/live`;
    const current = new WebSocket(url);
    socket = current;
    let refused = false;
    current.onopen = () => {
      const after = options.lastMessageId();
      current.send(JSON.stringify({ type: 'auth', token: options.token(), conversation: options.conversation, ...(after ? { after } : {}) }));
      ping = setInterval(() => {
        current.send(JSON.stringify({ type: 'ping' }));
        clearTimeout(pongDue);
        pongDue = setTimeout(() => current.close(), PONG_TIMEOUT_MS);
      }, PING_MS);
    };
    current.onmessage = (event: MessageEvent) => {
      let frame: WidgetServerFrame;
      try {
        frame = JSON.parse(String(event.data)) as WidgetServerFrame;
      } catch {
        return;
      }
      if (frame.type === 'ready') {
        attempt = 0;
        options.onStatus('live');
      } else if (frame.type === 'message') options.onMessage(frame.message);
      else if (frame.type === 'typing') options.onTyping(frame.typing);
      else if (frame.type === 'csat') options.onCsat?.(frame.conversationId);
      else if (frame.type === 'pong') clearTimeout(pongDue);
      else if (frame.type === 'error' && (frame.statusCode === 401 || frame.statusCode === 403)) {
        refused = true;
        options.onRefused(frame.statusCode, frame.message);
      }
    };
    current.onclose = () => {
      clearTimers();
      if (stopped || refused || socket !== current) return;
      attempt += 1;
      options.onStatus('reconnecting');
      const delay = Math.min(MAX_DELAY_MS, 250 * 2 ** Math.min(attempt, 6)) * (0.75 + Math.random() * 0.5);
      retry = setTimeout(open, delay);
    };
  };

  // Back online: try at once instead of waiting for the next delay.
  const online = () => {
    if (socket && socket.readyState !== WebSocket.CLOSED) return;
    clearTimeout(retry);
    open();
  };
  window.addEventListener('online', online);
  open();
  return () => {
    stopped = true;
    clearTimers();
    clearTimeout(retry);
    window.removeEventListener('online', online);
    socket?.close();
  };
}
