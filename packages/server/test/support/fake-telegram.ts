// A fake Telegram Bot API (https://core.telegram.org/bots/api) on a local port: getMe, setWebhook,
// deleteWebhook, getFile with file downloads, sendMessage; answers like Telegram, including 401 for an unknown
// token, 429 with parameters.retry_after and 403 for a user who blocked the bot.
import { startFakeServer, type Answer, type FakeServer, type RecordedRequest } from './fake-server.ts';

export interface FakeTelegram extends FakeServer {
  /** Makes a token known, as BotFather would. */
  addBot(token: string, bot: { id: number; username: string }): void;
  /** A file getFile can find and /file/bot<token>/<path> serves. */
  addFile(fileId: string, path: string, bytes: Buffer): void;
  /** The chat's user blocked the bot: sendMessage answers 403. */
  block(chatId: string): void;
  /** The next `count` sendMessage calls answer 429 with `retry_after` seconds. */
  rateLimitNext(count: number, retryAfterSeconds: number): void;
  /** setWebhook refuses with this description (as for a URL Telegram does not accept). */
  refuseWebhooks(description: string | null): void;
  /** The webhook each token set (url and secret_token), as Telegram keeps it. */
  webhooks: Map<string, { url: string; secretToken: string | undefined }>;
  /** The Bot API calls of a method, in order. */
  calls(method: string): RecordedRequest[];
}

const ok = (result: unknown): Answer => ({ status: 200, json: { ok: true, result } });
const error = (code: number, description: string, parameters?: unknown): Answer => ({
  status: code,
  json: { ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) },
});

export async function startFakeTelegram(): Promise<FakeTelegram> {
  const bots = new Map<string, { id: number; username: string }>();
  const files = new Map<string, { path: string; bytes: Buffer }>();
  const blocked = new Set<string>();
  const webhooks = new Map<string, { url: string; secretToken: string | undefined }>();
  let rateLimited = 0;
  let retryAfter = 1;
  let webhookRefusal: string | null = null;

  function answer(request: RecordedRequest): Answer {
    const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(request.path);
    if (download) {
      const file = [...files.values()].find((f) => f.path === decodeURIComponent(download[2] ?? ''));
      return bots.has(download[1] ?? '') && file ? { status: 200, bytes: file.bytes } : error(404, 'Not Found');
    }
    const call = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(request.path);
    if (!call) return error(404, 'Not Found');
    const [, token = '', method = ''] = call;
    const bot = bots.get(token);
    if (!bot) return error(401, 'Unauthorized');
    const body = request.json ?? {};
    switch (method) {
      case 'getMe':
        return ok({ id: bot.id, is_bot: true, first_name: 'Test bot', username: bot.username });
      case 'setWebhook':
        if (webhookRefusal) return error(400, webhookRefusal);
        webhooks.set(token, { url: String(body.url), secretToken: body.secret_token as string | undefined });
        return { status: 200, json: { ok: true, result: true, description: 'Webhook was set' } };
      case 'deleteWebhook':
        webhooks.delete(token);
        return { status: 200, json: { ok: true, result: true, description: 'Webhook was deleted' } };
      case 'getFile': {
        const file = files.get(String(body.file_id));
        if (!file) return error(400, 'Bad Request: invalid file_id');
        return ok({ file_id: body.file_id, file_unique_id: 'u', file_size: file.bytes.length, file_path: file.path });
      }
      case 'sendMessage': {
        if (rateLimited > 0) {
          rateLimited -= 1;
          return error(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
        }
        if (blocked.has(String(body.chat_id))) return error(403, 'Forbidden: bot was blocked by the user');
        return ok({ message_id: 1, date: Math.floor(Date.now() / 1000), chat: { id: Number(body.chat_id) }, text: body.text });
      }
      default:
        return error(404, 'Not Found');
    }
  }

  const server = await startFakeServer(answer);
  return {
    ...server,
    webhooks,
    addBot: (token, bot) => bots.set(token, bot),
    addFile: (fileId, path, bytes) => files.set(fileId, { path, bytes }),
    block: (chatId) => blocked.add(chatId),
    rateLimitNext(count, seconds) {
      rateLimited = count;
      retryAfter = seconds;
    },
    refuseWebhooks(description) {
      webhookRefusal = description;
    },
    calls: (method) => server.requests.filter((request) => request.path.endsWith(`/${method}`)),
  };
}
