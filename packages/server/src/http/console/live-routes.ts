// Live updates of the web account (docs/architecture.md, Web account): `GET /console/v1/live` is a Server-Sent Events
// stream of the account's committed events (the webhook payloads, from the live feed), authenticated like
// every console call (session cookie or bearer header), so no token is ever put in a URL.
import type { ServerResponse } from 'node:http';
import type { Presence } from '../../alerts/presence.ts';
import type { LiveFeed } from '../../events/live-feed.ts';
import type { TypedApp } from '../route-options.ts';
import { consoleAccountOf } from './console-plugin.ts';

/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

/** Open streams, and `closeMember` to end those of a member whose access changed (removed, role, password, sign-out). */
export function registerLiveRoutes(
  app: TypedApp,
  liveFeed: LiveFeed,
  presence: Pick<Presence, 'connected'>,
): { closeMember(memberId: string): void } {
  const open = new Set<ServerResponse>();
  const byMember = new Map<string, Set<ServerResponse>>();
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
    const send = (name: string, data: unknown) => stream.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    const unsubscribe = liveFeed.subscribe(
      accountId,
      (event) => send('event', { chatId: event.chatId, channelId: event.channelId, payload: event.payload }),
      () => send('gap', {}),
    );
    // Console-only changes (assignment, notes, read state) of a chat: Inboxes reload it.
    const unsubscribeChanges = liveFeed.subscribeChanges(accountId, (chatId) => send('change', { chatId }));
    const heartbeat = setInterval(() => stream.write(': ping\n\n'), HEARTBEAT_MS);
    open.add(stream);
    // A member with a live stream is online: alert e-mails wait for no one else (alerts/presence.ts).
    const left = presence.connected(accountId, memberId);
    const mine = byMember.get(memberId) ?? new Set<ServerResponse>();
    byMember.set(memberId, mine.add(stream));
    const done = () => {
      left();
      clearInterval(heartbeat);
      unsubscribe();
      unsubscribeChanges();
      open.delete(stream);
      mine.delete(stream);
      if (mine.size === 0 && byMember.get(memberId) === mine) byMember.delete(memberId);
    };
    request.raw.on('close', done);
    stream.on('close', done);
    send('ready', {});
  });
  return {
    closeMember(memberId) {
      // The browser reconnects; a member whose sessions ended then gets 401.
      for (const stream of byMember.get(memberId) ?? []) stream.end();
    },
  };
}
