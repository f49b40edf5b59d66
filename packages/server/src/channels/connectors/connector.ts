// The one interface of messenger connectors (docs/architecture.md, Messenger connectors): verify an
// inbound request, parse it into customer messages, register and unregister the webhook, send a text, download
// media. Each kind's module speaks its messenger's API over plain undici; base URLs are operator settings.
import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { MessengerKind } from '@parley/contracts';

/** A messenger's answer that is not a success: thrown by the connectors and by their HTTP client (the kernel's). */
export { MessengerError } from '../../kernel/messenger-http.ts';

export type Credentials = Readonly<Record<string, string>>;

/** What a message carries besides text, to be downloaded through the messenger's API. */
export interface MediaRef {
  /** `voice` and `audio` go to the agent as audio; `sticker` is an image when its format is one. */
  kind: 'image' | 'voice' | 'audio' | 'document' | 'sticker' | 'video';
  /** The messenger's reference: a file id (Telegram, WhatsApp) or a URL (Messenger, Instagram, Viber). */
  ref: string;
  /** A file name to store it under (its extension is corrected from the bytes). */
  name: string;
}

/** One customer message of an inbound update. */
export interface InboundMessage {
  /** The messenger's id of the delivery (Telegram update_id, Meta mid, Viber message_token): a redelivery is stored once. */
  externalId: string;
  /** The chat's id in the messenger (spec: `chatId`). */
  externalChatId: string;
  /** The customer's (or group's) name there, when the messenger gives it. */
  dialogName: string | null;
  photoUrl: string | null;
  isGroup: boolean;
  senderName: string | null;
  text: string;
  media: MediaRef[];
  /** Kinds Parley does not take (a location, a poll…): each becomes a text note, not an error. */
  unsupported: string[];
}

export interface InboundRequest {
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

export interface DownloadedMedia {
  bytes: Buffer;
  name: string;
}

/** What a reply is sent with besides the chat: the channel's name (Viber shows it as the sender). */
export interface SendContext {
  channelName: string;
  /**
   * An agent's clarifying choices, on the reply's last part: the options' labels in order (picked as 1, 2…), then
   * the last line's (picked as 0). A messenger with native quick replies shows them beside the text; a tap comes back
   * as the option's number.
   */
  choices?: readonly string[];
  /** `rating`: the choices are a CSAT question's 1–5, each tap sending its own number (no `0` line). */
  choicesKind?: 'clarify' | 'rating';
}

/** The number a tap on choice `i` of `count` sends back: 1, 2 …, the clarification's last line 0. */
export function choiceNumber(context: SendContext, i: number, count: number): string {
  return String(context.choicesKind !== 'rating' && i === count - 1 ? 0 : i + 1);
}

export interface Connector {
  readonly kind: MessengerKind;
  /** Longest text of one message; longer replies go out in parts. */
  readonly textLimit: number;
  /** The request comes from the messenger: its secret header or signature over the raw body (constant-time). */
  verify(credentials: Credentials, request: InboundRequest): boolean;
  /** Customer messages of a verified update; anything else (delivery receipts, echoes…) is none. */
  parse(body: unknown, rawBody: string): InboundMessage[];
  download(credentials: Credentials, media: MediaRef): Promise<DownloadedMedia>;
  /**
   * Points the messenger's webhook at `inboundUrl` (Telegram setWebhook, Viber set_webhook; the Meta kinds are set
   * in Meta's dashboard). Returns the credentials to store (Telegram adds the generated secret token).
   */
  register(credentials: Credentials, inboundUrl: string): Promise<Credentials>;
  unregister(credentials: Credentials): Promise<void>;
  sendText(credentials: Credentials, externalChatId: string, text: string, context: SendContext): Promise<void>;
  /** Meta's GET check: the challenge to echo, or undefined when the verify token is wrong. */
  verifySubscription?(credentials: Credentials, query: { mode: string; verifyToken: string; challenge: string }): string | undefined;
}

/** HMAC-SHA256 of the raw body, hex. */
export function hmacHex(secret: string, rawBody: Buffer): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Splits a text into parts of at most `limit` UTF-16 units (what the messengers count), preferring a paragraph,
 * then a line, then a word boundary in the second half of a part; never inside a surrogate pair.
 */
export function splitText(text: string, limit: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    let cut = -1;
    for (const separator of ['\n\n', '\n', ' ']) {
      const at = rest.lastIndexOf(separator, limit - separator.length);
      if (at >= limit / 2) {
        cut = at + separator.length;
        break;
      }
    }
    if (cut === -1) {
      cut = limit;
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut -= 1; // a high surrogate stays with its pair
    }
    const part = rest.slice(0, cut).trimEnd();
    if (part.length > 0) parts.push(part);
    rest = rest.slice(cut).replace(/^\s+/, '');
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}

/** A string field of an object, or undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function rec(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
