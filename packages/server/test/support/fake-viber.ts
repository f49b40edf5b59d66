// A fake Viber REST bot API on a local port: set_webhook and send_message with X-Viber-Auth-Token, media URLs.
// Answers like Viber: HTTP 200 with `status` 0 for success, 2 invalidAuthToken, 6 notSubscribed (the user left).
import { startFakeServer, type Answer, type FakeServer, type RecordedRequest } from './fake-server.ts';

export interface FakeViber extends FakeServer {
  addBot(authToken: string): void;
  /** A media URL serving the bytes (pictures and files customers send). */
  mediaUrl(name: string, bytes: Buffer): string;
  /** The user unsubscribed: send_message answers status 6. */
  unsubscribe(userId: string): void;
  /** set_webhook refuses with this status message. */
  refuseWebhooks(statusMessage: string | null): void;
  webhooks: Map<string, string>;
  calls(method: 'set_webhook' | 'send_message'): RecordedRequest[];
}

const status = (code: number, message: string, extra: Record<string, unknown> = {}): Answer => ({
  status: 200,
  json: { status: code, status_message: message, ...extra },
});

export async function startFakeViber(): Promise<FakeViber> {
  const bots = new Set<string>();
  const media = new Map<string, Buffer>();
  const unsubscribed = new Set<string>();
  const webhooks = new Map<string, string>();
  let refusal: string | null = null;
  let base = '';

  function answer(request: RecordedRequest): Answer {
    const file = /^\/media\/(.+)$/.exec(request.path);
    if (file) {
      const bytes = media.get(file[1] ?? '');
      return bytes ? { status: 200, bytes } : { status: 404, json: {} };
    }
    const token = String(request.headers['x-viber-auth-token'] ?? '');
    if (!bots.has(token)) return status(2, 'invalidAuthToken');
    const body = request.json ?? {};
    if (request.path === '/pa/set_webhook') {
      if (refusal) return status(1, refusal);
      if (body.url === '') webhooks.delete(token);
      else webhooks.set(token, String(body.url));
      return status(0, 'ok', { event_types: body.event_types ?? [] });
    }
    if (request.path === '/pa/send_message') {
      if (unsubscribed.has(String(body.receiver))) return status(6, 'notSubscribed');
      return status(0, 'ok', { message_token: 5741311803571721087n.toString(), chat_hostname: 'SN-CHAT-01_' });
    }
    return { status: 404, json: {} };
  }

  const server = await startFakeServer(answer);
  base = server.url;
  return {
    ...server,
    webhooks,
    addBot: (authToken) => bots.add(authToken),
    mediaUrl(name, bytes) {
      media.set(name, bytes);
      return `${base}/media/${name}`;
    },
    unsubscribe: (userId) => unsubscribed.add(userId),
    refuseWebhooks(message) {
      refusal = message;
    },
    calls: (method) => server.requests.filter((request) => request.path === `/pa/${method}`),
  };
}
