// Viber REST bot API (https://developers.viber.com/docs/api/rest-bot-api/): set_webhook, callbacks signed with
// X-Viber-Content-Signature (HMAC-SHA256 of the raw body with the auth token), send_message. Viber bots get no
// voice messages; pictures, videos, files and stickers come as media URLs.
import type { ApiAnswer, MessengerHttp } from '../../kernel/messenger-http.ts';
import {
  choiceNumber,
  header,
  hmacHex,
  MessengerError,
  rec,
  str,
  type Connector,
  type Credentials,
  type MediaRef,
} from './connector.ts';
import { secretsEqual } from '../../lib/secrets.ts';

export const VIBER_TEXT_LIMIT = 7000;
export const VIBER_SIGNATURE_HEADER = 'x-viber-content-signature';
/** Viber's sender name is at most 28 characters. */
const SENDER_NAME_MAX = 28;
/** Viber status codes: 6 receiverNotSubscribed, 5 receiverNoSuitableDevice; 12 is its rate limit. */
const VIBER_RATE_LIMITED = 12;

function raise(error: MessengerError): never {
  throw error;
}

function viberResult(answer: ApiAnswer): Record<string, unknown> {
  const body = rec(answer.json);
  if (answer.status === 429) {
    return raise(new MessengerError('rateLimited', str(body?.status_message) ?? 'Too many requests', answer.retryAfterMs ?? 60_000));
  }
  if (answer.status >= 500) return raise(new MessengerError('unavailable', `Viber answered ${answer.status}`));
  if (answer.status < 200 || answer.status >= 300 || !body) return raise(new MessengerError('refused', `Viber answered ${answer.status}`));
  const status = body.status;
  if (status === 0) return body;
  const description = str(body.status_message) ?? `status ${String(status)}`;
  if (status === VIBER_RATE_LIMITED) return raise(new MessengerError('rateLimited', description, answer.retryAfterMs ?? 60_000));
  return raise(new MessengerError('refused', description));
}

/** `message_token` is a 64-bit integer: read from the raw text, since JSON.parse would round it. */
function messageToken(rawBody: string, parsed: unknown): string | undefined {
  const match = /"message_token"\s*:\s*"?(\d+)"?/.exec(rawBody);
  if (match?.[1]) return match[1];
  return typeof parsed === 'number' || typeof parsed === 'string' ? String(parsed) : undefined;
}

export function createViberConnector({ http, apiUrl }: { http: MessengerHttp; apiUrl: string }): Connector {
  const tokenOf = (credentials: Credentials) => credentials.authToken ?? raise(new MessengerError('refused', 'no auth token'));
  const call = async (credentials: Credentials, path: string, body: unknown) =>
    viberResult(await http.call(`${apiUrl}/pa/${path}`, { method: 'POST', headers: { 'x-viber-auth-token': tokenOf(credentials) }, body }));

  return {
    kind: 'viber',
    textLimit: VIBER_TEXT_LIMIT,

    verify(credentials, request) {
      const given = header(request.headers, VIBER_SIGNATURE_HEADER);
      const token = credentials.authToken;
      return given !== undefined && token !== undefined && secretsEqual(given.toLowerCase(), hmacHex(token, request.rawBody));
    },

    parse(body, rawBody) {
      const update = rec(body);
      if (str(update?.event) !== 'message') return []; // webhook check, subscribed, delivered, seen… carry no message
      const sender = rec(update?.sender);
      const message = rec(update?.message);
      const senderId = str(sender?.id);
      const token = messageToken(rawBody, update?.message_token);
      if (!sender || !message || !senderId || !token) return [];
      const type = str(message.type) ?? '';
      const url = str(message.media);
      const media: MediaRef[] = [];
      const unsupported: string[] = [];
      let text = str(message.text) ?? '';
      const kinds: Record<string, MediaRef['kind']> = { picture: 'image', video: 'video', file: 'document', sticker: 'sticker' };
      const kind = kinds[type];
      if (kind && url) media.push({ kind, ref: url, name: str(message.file_name) ?? type });
      else if (type === 'url' && url) text = url;
      else if (type !== 'text') unsupported.push(type || 'message');
      const name = str(sender.name) ?? null;
      return [
        {
          externalId: token,
          externalChatId: senderId,
          dialogName: name,
          photoUrl: str(sender.avatar) ?? null,
          isGroup: false,
          senderName: name,
          text,
          media,
          unsupported,
        },
      ];
    },

    async download(_credentials, media) {
      return { bytes: await http.download(media.ref, { guarded: true }), name: media.name };
    },

    async register(credentials, inboundUrl) {
      await call(credentials, 'set_webhook', {
        url: inboundUrl,
        event_types: ['delivered', 'seen', 'failed', 'subscribed', 'unsubscribed', 'conversation_started'],
        send_name: true,
        send_photo: true,
      });
      return credentials;
    },

    async unregister(credentials) {
      await call(credentials, 'set_webhook', { url: '' });
    },

    async sendText(credentials, externalChatId, text, context) {
      await call(credentials, 'send_message', {
        receiver: externalChatId,
        min_api_version: 1,
        sender: { name: [...context.channelName].slice(0, SENDER_NAME_MAX).join('') },
        type: 'text',
        text,
        // Clarifying choices: a keyboard whose buttons reply with the option's number (it comes back as a text message).
        ...(context.choices?.length
          ? {
              keyboard: {
                Type: 'keyboard',
                DefaultHeight: false,
                Buttons: context.choices.map((label, i, all) => ({
                  Columns: 6,
                  Rows: 1,
                  ActionType: 'reply',
                  ActionBody: choiceNumber(context, i, all.length),
                  Text: label,
                })),
              },
            }
          : {}),
      });
    },
  };
}
