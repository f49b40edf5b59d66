// Live updates of the web account (docs/architecture.md, Web account): `GET /console/v1/live` is a Server-Sent Events
// stream of the account's committed events (the webhook payloads, from the live feed) and console changes,
// authenticated like every console call (session cookie or bearer header), so no token is ever put in a URL. Each
// message has an id (the stream's position): a reconnect's Last-Event-ID gets what was missed in between, once, or
// `reset` when this process no longer holds that position (the view reloads its lists). Each message also carries
// what an open Inbox needs to patch its lists in place rather than reload them (issue #41): the chat as the list shows
// it and the account's `Needs a human` count, read once per batch for all the account's streams of this process.
import type { ServerResponse } from 'node:http';
import type { InboxListChat } from '@parley/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { LiveEvent, LiveFeed } from './live-feed.ts';
import type { TypedApp } from '../http/route-options.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';

/** Who has the web account open (alerts/presence.ts implements it): a stream marks its member online until it ends. */
export interface LivePresence {
  /** Returns the call that marks the stream gone. */
  connected(accountId: string, memberId: string): () => void;
}

/** What the stream reads to say how a chat now shows in the Inbox (the chats service satisfies it). */
export interface InboxLiveReads {
  /** These chats of the account as the Inbox's list shows them; a chat gone is absent. */
  listedChats(accountId: string, chatIds: readonly string[]): Promise<InboxListChat[]>;
  /** The number of the account's chats that need a person. */
  needsHumanCount(accountId: string): Promise<number>;
}

/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

/** One message for one stream: `chatId` (an event's or a change's) asks for the chat and the count beside its data. */
interface Outgoing {
  stream: ServerResponse;
  name: string;
  data: Record<string, unknown>;
  id: string | undefined;
  chatId?: string | null;
}

const sse = (name: string, data: unknown, id: string | undefined) =>
  `event: ${name}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;

/**
 * The messages of one account's streams in this process, written in the order heard: those about a chat with the chat
 * (`null`: gone; absent when it could not be read, so the Inbox reloads) and the `Needs a human` count, read after the
 * change committed, once per batch for every stream. Batches are read one after the other, so a later message never
 * carries an older state than an earlier one.
 */
function createAccountLive(accountId: string, reads: InboxLiveReads, logger: FastifyBaseLogger) {
  let queue: Outgoing[] = [];
  let draining: Promise<void> | undefined;
  let streams = 0;

  const drain = async (): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      const ids = new Set<string>();
      for (const item of batch) if (item.chatId) ids.add(item.chatId);
      const enriched = batch.some((item) => item.chatId !== undefined);
      let chats: Map<string, InboxListChat> | undefined;
      let needsHumanCount: number | undefined;
      if (enriched) {
        try {
          const [listed, count] = await Promise.all([reads.listedChats(accountId, [...ids]), reads.needsHumanCount(accountId)]);
          chats = new Map(listed.map((chat) => [chat.id, chat]));
          needsHumanCount = count;
        } catch (error) {
          logger.warn({ err: error }, 'live stream: the chats of a batch could not be read; the Inboxes reload');
        }
      }
      const chatOf = (chatId: string | null) => (chatId === null || chats === undefined ? undefined : (chats.get(chatId) ?? null));
      for (const { stream, name, data, id, chatId } of batch) {
        if (stream.writableEnded) continue;
        stream.write(sse(name, chatId === undefined ? data : { ...data, chat: chatOf(chatId), needsHumanCount }, id));
      }
    }
  };

  // A drain with nothing to read ends in the tick it started, before its `finally`: what came meanwhile starts another.
  const kick = () => {
    draining ??= drain().finally(() => {
      draining = undefined;
      if (queue.length > 0) kick();
    });
  };
  return {
    send(item: Outgoing): void {
      queue.push(item);
      kick();
    },
    opened: () => void (streams += 1),
    /** Whether this was the account's last stream here. */
    closed: () => (streams -= 1) === 0,
  };
}

/** Open streams, and `closeMember` to end those of a member whose access changed (removed, role, password, sign-out). */
export function registerLiveRoutes(
  app: TypedApp,
  liveFeed: LiveFeed,
  presence: LivePresence,
  reads: InboxLiveReads,
): { closeMember(memberId: string): void } {
  const open = new Set<ServerResponse>();
  const byMember = new Map<string, Set<ServerResponse>>();
  const accounts = new Map<string, ReturnType<typeof createAccountLive>>();
  // Open streams would hold the server up at shutdown: they are ended first.
  app.addHook('preClose', async () => {
    for (const stream of open) stream.end();
    open.clear();
  });

  app.get('/live', { config: { role: 'agent' } }, (request, reply) => {
    const { accountId, memberId } = consoleAccountOf(request);
    reply.hijack();
    const stream = reply.raw;
    stream.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    });
    stream.write('retry: 2000\n\n');
    let account = accounts.get(accountId);
    if (!account) accounts.set(accountId, (account = createAccountLive(accountId, reads, app.log)));
    const live = account;
    live.opened();
    const send = (name: string, data: Record<string, unknown>, id?: string, chatId?: string | null) =>
      live.send({ stream, name, data, id, ...(chatId === undefined ? {} : { chatId }) });
    const sendEvent = (event: LiveEvent, position: string) =>
      send('event', { chatId: event.chatId, channelId: event.channelId, payload: event.payload }, position, event.chatId);
    const lastEventId = request.headers['last-event-id'];
    const following = liveFeed.follow(accountId, typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : undefined, {
      event: sendEvent,
      // Console-only changes (assignment, notes, read state, tags) of a chat: Inboxes patch or reload it.
      change: (chatId, position) => send('change', { chatId }, position, chatId),
      gap: (position) => send('gap', {}, position),
    });
    const { missed } = following;
    if (missed === 'reset') send('reset', {});
    for (const item of Array.isArray(missed) ? missed : []) {
      if (item.kind === 'event') sendEvent(item.event, item.position);
      else send('change', { chatId: item.chatId }, item.position, item.chatId);
    }
    const heartbeat = setInterval(() => stream.write(': ping\n\n'), HEARTBEAT_MS);
    open.add(stream);
    // A member with a live stream is online: alert e-mails wait for no one else (alerts/presence.ts).
    const left = presence.connected(accountId, memberId);
    const mine = byMember.get(memberId) ?? new Set<ServerResponse>();
    byMember.set(memberId, mine.add(stream));
    let closed = false;
    const done = () => {
      if (closed) return;
      closed = true;
      left();
      clearInterval(heartbeat);
      following.stop();
      if (live.closed() && accounts.get(accountId) === live) accounts.delete(accountId);
      open.delete(stream);
      mine.delete(stream);
      if (mine.size === 0 && byMember.get(memberId) === mine) byMember.delete(memberId);
    };
    request.raw.on('close', done);
    stream.on('close', done);
    // Resumed: the missed items came just before; otherwise the view loads what it shows.
    send('ready', { resumed: Array.isArray(missed) }, following.position);
  });
  return {
    closeMember(memberId) {
      // The browser reconnects; a member whose sessions ended then gets 401.
      for (const stream of byMember.get(memberId) ?? []) stream.end();
    },
  };
}
