// The widget's live stream (`/widget/v1/live`, WebSocket): agent and team replies reach the visitor as they are
// committed. The frame authenticates in its first frame (no token in the URL) and names the last message it has;
// the server sends what came since (read from the database, so a reconnect misses nothing) and then follows the
// live feed of committed events, reading the chat again on each event of the followed conversation, and passes on
// the typing indicator (events/typing.ts). Keep-alive: the server pings (a dead peer is dropped), and
// answers the frame's own `ping` frames (browsers cannot see pings).
import type { WidgetClientFrame, WidgetServerFrame } from '@parley/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import { DomainError } from '../errors.ts';
import type { LiveFeed } from '../events/live-feed.ts';
import { RESUME_OVERLAP_MS, toWidgetMessage, type VisitorContext, type WidgetService } from './widget-service.ts';
import type { TypingFeed } from '../events/typing.ts';
import type { ConversationRow } from './widget-store.ts';

export const AUTH_TIMEOUT_MS = 10_000;
export const PING_INTERVAL_MS = 25_000;
/** Message ids remembered per connection to drop repeats of the overlapping reads. */
const SENT_MEMORY = 2_000;

export interface LiveDeps {
  widget: Pick<WidgetService, 'authenticate' | 'conversationOf' | 'messagesSince' | 'resumePoint' | 'csatPending'>;
  liveFeed: Pick<LiveFeed, 'subscribe'>;
  typing: Pick<TypingFeed, 'subscribe' | 'subscribeEnded'>;
  logger: FastifyBaseLogger;
}

function parseFrame(raw: unknown): WidgetClientFrame | undefined {
  try {
    const value = JSON.parse(String(raw)) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const frame = value as Record<string, unknown>;
    if (frame.type === 'ping') return { type: 'ping' };
    const optionalString = (value: unknown) => value === undefined || typeof value === 'string';
    if (frame.type === 'auth' && typeof frame.token === 'string' && optionalString(frame.after) && optionalString(frame.conversation)) {
      return {
        type: 'auth',
        token: frame.token,
        ...(typeof frame.conversation === 'string' ? { conversation: frame.conversation } : {}),
        ...(typeof frame.after === 'string' ? { after: frame.after } : {}),
      };
    }
  } catch {
    // not JSON
  }
  return undefined;
}

export function serveLive(socket: WebSocket, deps: LiveDeps): void {
  const { widget, liveFeed, typing, logger } = deps;
  let context: VisitorContext | undefined;
  let conversation: ConversationRow | undefined;
  let unsubscribe = () => {};
  let unsubscribeTyping = () => {};
  let unsubscribeEnded = () => {};
  let cursor: Date | undefined;
  let pulling: Promise<void> = Promise.resolve();
  const sent = new Set<string>();
  let alive = true;
  let authStarted = false;

  const send = (frame: WidgetServerFrame) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
  };
  const authTimer = setTimeout(() => socket.close(4401, 'auth timeout'), AUTH_TIMEOUT_MS);
  const pinger = setInterval(() => {
    if (!alive) {
      socket.terminate();
      return;
    }
    alive = false;
    socket.ping();
  }, PING_INTERVAL_MS);
  socket.on('pong', () => {
    alive = true;
  });

  /** Sends the chat's messages from just before the cursor on, skipping those already sent; one read at a time. */
  const pull = () => {
    pulling = pulling
      .then(async () => {
        if (!context || !conversation || socket.readyState !== socket.OPEN) return;
        const since = cursor ? new Date(cursor.getTime() - RESUME_OVERLAP_MS) : undefined;
        for (const row of await widget.messagesSince(context, conversation, since)) {
          if (sent.has(row.id)) continue;
          sent.add(row.id);
          if (sent.size > SENT_MEMORY) sent.delete(sent.values().next().value as string);
          if (!cursor || row.createdAt > cursor) cursor = row.createdAt;
          send({ type: 'message', message: toWidgetMessage(row) });
        }
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'widget live read failed'));
  };

  const authenticate = async (frame: { token: string; conversation?: string; after?: string }) => {
    try {
      context = await widget.authenticate(`Bearer ${frame.token}`);
      conversation = await widget.conversationOf(context, frame.conversation);
    } catch (error) {
      const status = error instanceof DomainError ? error.status : 500;
      send({ type: 'error', message: error instanceof DomainError ? error.message : 'Internal Server Error', statusCode: status });
      socket.close(4000 + status, 'refused');
      return;
    }
    clearTimeout(authTimer);
    const { channel } = context;
    const followed = conversation;
    if (!followed) return;
    // Subscribed before the first read: an event committed in between triggers another read.
    unsubscribe = liveFeed.subscribe(
      channel.accountId,
      (event) => {
        const payload = event.payload;
        if (event.channelId === channel.id && payload.event === 'new_messages' && payload.chat.externalChatId === followed.id) pull();
      },
      pull,
    );
    // After a read: the messages committed before the signal (the visitor's question, the reply) go first.
    unsubscribeTyping = typing.subscribe(channel.id, followed.id, (on) => {
      pull();
      pulling = pulling.then(() => send({ type: 'typing', typing: on }));
    });
    // A conversation of the chat ended (the task done, or quiet time): the frame asks for a rating, after the messages.
    const askRating = () => {
      pulling = pulling
        .then(async () => {
          if (!context) return;
          const pending = await widget.csatPending(context, followed);
          if (pending) send({ type: 'csat', conversationId: pending.conversationId });
        })
        .catch((error: unknown) => logger.warn({ err: error }, 'widget CSAT read failed'));
    };
    unsubscribeEnded = typing.subscribeEnded(channel.id, followed.id, askRating);
    if (socket.readyState !== socket.OPEN) {
      unsubscribe();
      unsubscribeTyping();
      unsubscribeEnded();
      return;
    }
    if (frame.after) cursor = await widget.resumePoint(context, followed, frame.after);
    send({ type: 'ready' });
    pull();
    // The frame (re)loaded: the last conversation, ended recently and unrated, is offered for rating.
    askRating();
  };

  socket.on('message', (raw) => {
    const frame = parseFrame(raw);
    if (!frame) {
      send({ type: 'error', message: 'Unknown frame', statusCode: 400 });
      return;
    }
    if (frame.type === 'ping') send({ type: 'pong' });
    else if (!authStarted) {
      authStarted = true;
      void authenticate(frame);
    }
  });
  socket.on('close', () => {
    clearTimeout(authTimer);
    clearInterval(pinger);
    unsubscribe();
    unsubscribeTyping();
    unsubscribeEnded();
  });
  socket.on('error', (error) => logger.debug({ err: error }, 'widget socket error'));
}
