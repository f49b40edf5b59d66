// The typing indicator: the agent's reply job says when it starts and stops preparing a reply in a widget chat,
// and every process tells the frames following that conversation. It goes as a NOTIFY (nothing is stored: a
// frame that was not connected just misses it), `{"c": channelId, "x": conversationId, "t": typing}`. The same
// NOTIFY says when a conversation of the chat ended (`"e": true`, sent by the database: migration 0027 and the
// conversations sweep), so the frame asks `How did we do?`.
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Listen } from '../db/client.ts';

export const TYPING_CHANNEL = 'parley_widget_typing';

/** The reply job's hook (agent-service.ts `replying`): a reply to `chat` is being prepared, or no longer. */
export type ReplyingHook = (chat: { channelId: string; channelKind: string; externalChatId: string }, replying: boolean) => void;

export function notifyWidgetTyping(deps: { db: Database; logger: FastifyBaseLogger }): ReplyingHook {
  return (chat, replying) => {
    if (chat.channelKind !== 'widget') return;
    const payload = JSON.stringify({ c: chat.channelId, x: chat.externalChatId, t: replying });
    deps.db.execute(sql`SELECT pg_notify(${TYPING_CHANNEL}, ${payload})`).catch((error: unknown) =>
      deps.logger.warn({ err: error }, 'announcing the typing indicator failed'),
    );
  };
}

export type TypingListener = (typing: boolean) => void;

export interface TypingFeed {
  /** `listener` hears when the agent starts or stops preparing a reply in the conversation. Returns the unsubscribe. */
  subscribe(channelId: string, conversationId: string, listener: TypingListener): () => void;
  /** `listener` hears when a conversation of the chat ends (CSAT). Returns the unsubscribe. */
  subscribeEnded(channelId: string, conversationId: string, listener: () => void): () => void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createTypingFeed(listen: Listen | undefined): TypingFeed {
  const listeners = new Map<string, Set<TypingListener>>();
  const endedListeners = new Map<string, Set<() => void>>();
  const keyOf = (channelId: string, conversationId: string) => `${channelId}\n${conversationId}`;
  let unlisten: (() => Promise<void>) | undefined;

  const onNotify = (payload: string | undefined) => {
    if (payload === undefined || (listeners.size === 0 && endedListeners.size === 0)) return;
    let signal: { c?: unknown; x?: unknown; t?: unknown; e?: unknown };
    try {
      signal = JSON.parse(payload) as typeof signal;
    } catch {
      return;
    }
    if (typeof signal.c !== 'string' || typeof signal.x !== 'string') return;
    if (signal.e === true) {
      for (const listener of endedListeners.get(keyOf(signal.c, signal.x)) ?? []) listener();
      return;
    }
    if (typeof signal.t !== 'boolean') return;
    for (const listener of listeners.get(keyOf(signal.c, signal.x)) ?? []) listener(signal.t);
  };

  function add<L>(map: Map<string, Set<L>>, key: string, listener: L): () => void {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && map.get(key) === set) map.delete(key);
    };
  }

  return {
    subscribe: (channelId, conversationId, listener) => add(listeners, keyOf(channelId, conversationId), listener),
    subscribeEnded: (channelId, conversationId, listener) => add(endedListeners, keyOf(channelId, conversationId), listener),
    async start() {
      if (listen && !unlisten) unlisten = await listen(TYPING_CHANNEL, onNotify);
    },
    async stop() {
      await unlisten?.();
      unlisten = undefined;
      listeners.clear();
      endedListeners.clear();
    },
  };
}
