// Telegram Bot API (https://core.telegram.org/bots/api): setWebhook with a per-channel secret_token, which
// Telegram sends back in X-Telegram-Bot-Api-Secret-Token; getFile then the file path for media; sendMessage.
import { randomBytes } from 'node:crypto';
import type { ApiAnswer, MessengerHttp } from '../../kernel/messenger-http.ts';
import {
  choiceNumber,
  header,
  list,
  MessengerError,
  rec,
  str,
  type Connector,
  type Credentials,
  type InboundMessage,
  type MediaRef,
} from './connector.ts';
import { secretsEqual } from '../../lib/secrets.ts';

export const TELEGRAM_TEXT_LIMIT = 4096;
export const TELEGRAM_SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/** Telegram's answer `{ ok, result, error_code, description, parameters.retry_after }` as a result or a MessengerError. */
function resultOf(answer: ApiAnswer): unknown {
  const body = rec(answer.json);
  if (answer.status >= 200 && answer.status < 300 && body?.ok === true) return body.result;
  const description = str(body?.description) ?? `Telegram answered ${answer.status}`;
  const retryAfter = rec(body?.parameters)?.retry_after;
  if (answer.status === 429) {
    const seconds = typeof retryAfter === 'number' ? retryAfter : undefined;
    return raise(new MessengerError('rateLimited', description, seconds !== undefined ? seconds * 1000 : (answer.retryAfterMs ?? 5_000)));
  }
  if (answer.status >= 500 || answer.status === 0) return raise(new MessengerError('unavailable', description));
  return raise(new MessengerError('refused', description));
}

function raise(error: MessengerError): never {
  throw error;
}

function fullName(person: Record<string, unknown> | undefined): string | null {
  if (!person) return null;
  const name = [str(person.first_name), str(person.last_name)].filter(Boolean).join(' ').trim();
  return name || str(person.username) || null;
}

/** Media and unsupported kinds of a Telegram message. */
function contentOf(message: Record<string, unknown>): { media: MediaRef[]; unsupported: string[] } {
  const media: MediaRef[] = [];
  const unsupported: string[] = [];
  const photos = list(message.photo);
  const largest = rec(photos.at(-1));
  if (largest && str(largest.file_id)) media.push({ kind: 'image', ref: str(largest.file_id) as string, name: 'photo' });
  const file = (key: string, kind: MediaRef['kind'], fallbackName: string) => {
    const item = rec(message[key]);
    const id = str(item?.file_id);
    if (item && id) media.push({ kind, ref: id, name: str(item.file_name) ?? fallbackName });
  };
  file('voice', 'voice', 'voice');
  file('audio', 'audio', 'audio');
  file('document', 'document', 'document');
  file('video', 'video', 'video');
  file('video_note', 'video', 'video');
  const sticker = rec(message.sticker);
  if (sticker) {
    const id = str(sticker.file_id);
    // Animated (TGS) and video (WebM) stickers are no image the spec accepts.
    if (id && sticker.is_animated !== true && sticker.is_video !== true) media.push({ kind: 'sticker', ref: id, name: 'sticker' });
    else unsupported.push('animated sticker');
  }
  for (const kind of ['location', 'venue', 'contact', 'poll', 'dice', 'game', 'animation']) {
    if (message[kind] !== undefined && !(kind === 'location' && message.venue !== undefined)) unsupported.push(kind);
  }
  return { media, unsupported };
}

export function createTelegramConnector({ http, apiUrl }: { http: MessengerHttp; apiUrl: string }): Connector & {
  getMe(token: string): Promise<{ id: number; username: string | null } | undefined>;
} {
  const method = (token: string, name: string) => `${apiUrl}/bot${token}/${name}`;
  const call = async (token: string, name: string, body?: unknown) => resultOf(await http.call(method(token, name), { method: 'POST', body: body ?? {} }));
  const botToken = (credentials: Credentials) => credentials.botToken ?? raise(new MessengerError('refused', 'no bot token'));

  return {
    kind: 'telegram',
    textLimit: TELEGRAM_TEXT_LIMIT,

    verify(credentials, request) {
      const given = header(request.headers, TELEGRAM_SECRET_HEADER);
      const expected = credentials.secretToken;
      return given !== undefined && expected !== undefined && secretsEqual(given, expected);
    },

    parse(body) {
      const update = rec(body);
      const updateId = update?.update_id;
      // A tap on an inline keyboard button (clarifying choices): the option's number, as if the customer typed it.
      const tapped = rec(update?.callback_query);
      const tappedIn = rec(tapped?.message);
      if (tapped && tappedIn && str(tapped.data) !== undefined) {
        const body = { update_id: updateId, message: { ...tappedIn, from: tapped.from, text: str(tapped.data) } };
        return this.parse(body, '');
      }
      const message = rec(update?.message);
      if (!message || (typeof updateId !== 'number' && typeof updateId !== 'string')) return [];
      const chat = rec(message.chat);
      const chatId = chat?.id;
      if (typeof chatId !== 'number' && typeof chatId !== 'string') return [];
      const isGroup = str(chat?.type) !== 'private';
      const { media, unsupported } = contentOf(message);
      const text = str(message.text) ?? str(message.caption) ?? '';
      const parsed: InboundMessage = {
        externalId: String(updateId),
        externalChatId: String(chatId),
        dialogName: (isGroup ? str(chat?.title) : undefined) ?? fullName(chat) ?? fullName(rec(message.from)),
        photoUrl: null,
        isGroup,
        senderName: fullName(rec(message.from)),
        text,
        media,
        unsupported: text === '' && media.length === 0 && unsupported.length === 0 ? ['message'] : unsupported,
      };
      return [parsed];
    },

    async download(credentials, media) {
      const token = botToken(credentials);
      const file = rec(await call(token, 'getFile', { file_id: media.ref }));
      const filePath = str(file?.file_path);
      if (!filePath) throw new MessengerError('refused', 'getFile gave no file_path');
      const bytes = await http.download(`${apiUrl}/file/bot${token}/${filePath.split('/').map(encodeURIComponent).join('/')}`, {
        guarded: false,
      });
      return { bytes, name: media.name };
    },

    async register(credentials, inboundUrl) {
      const secretToken = randomBytes(32).toString('base64url');
      await call(botToken(credentials), 'setWebhook', {
        url: inboundUrl,
        secret_token: secretToken,
        allowed_updates: ['message', 'callback_query'],
      });
      return { ...credentials, secretToken };
    },

    async unregister(credentials) {
      await call(botToken(credentials), 'deleteWebhook', {});
    },

    async sendText(credentials, externalChatId, text, context) {
      const choices = context.choices;
      // Clarifying choices: an inline keyboard, one button per line, whose callback data is the option's number.
      const keyboard = choices?.length
        ? { reply_markup: { inline_keyboard: choices.map((label, i) => [{ text: label, callback_data: choiceNumber(context, i, choices.length) }]) } }
        : {};
      await call(botToken(credentials), 'sendMessage', { chat_id: externalChatId, text, ...keyboard });
    },

    async getMe(token) {
      try {
        const bot = rec(await call(token, 'getMe'));
        if (!bot || typeof bot.id !== 'number') return undefined;
        return { id: bot.id, username: str(bot.username) ?? null };
      } catch (error) {
        if (error instanceof MessengerError && error.reason === 'refused') return undefined;
        throw error;
      }
    },
  };
}
