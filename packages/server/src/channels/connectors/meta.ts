// The three Meta kinds through the Graph API: WhatsApp Cloud API, Messenger (Facebook pages) and Instagram
// messaging. One module: the same signature (X-Hub-Signature-256 over the raw body with the app secret), the
// same GET verification (hub.verify_token), the same error format; they differ in payload shape, send path,
// token name and text limit. The webhook is set in Meta's dashboard, so register/unregister do nothing.
import type { ApiAnswer, MessengerHttp } from '../../kernel/messenger-http.ts';
import {
  choiceNumber,
  header,
  hmacHex,
  list,
  MessengerError,
  rec,
  str,
  type Connector,
  type Credentials,
  type InboundMessage,
  type MediaRef,
  type SendContext,
} from './connector.ts';
import { secretsEqual } from '../../lib/secrets.ts';

export const GRAPH_VERSION = 'v21.0';
export const META_SIGNATURE_HEADER = 'x-hub-signature-256';
type MetaKind = 'whatsapp' | 'facebook' | 'instagram';

/** Graph error codes that mean "too many calls, later" (https://developers.facebook.com/docs/graph-api/overview/rate-limiting). */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613, 80001, 80002, 80004, 80006, 80007, 130429, 131048, 131056]);
const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;

interface KindSpec {
  object: string;
  textLimit: number;
  token(credentials: Credentials): string | undefined;
  sendPath(credentials: Credentials): string | undefined;
  /** `choices`: clarifying choices, sent as the messenger's native quick replies (`choiceReplies`). */
  sendBody(externalChatId: string, text: string, choices?: readonly ChoiceReply[]): unknown;
}

/** A clarifying choice as a quick reply: its label and the number a tap sends back. */
interface ChoiceReply {
  label: string;
  number: string;
}

function choiceReplies(context: SendContext): ChoiceReply[] | undefined {
  const choices = context.choices;
  if (!choices?.length) return undefined;
  return choices.map((label, i) => ({ label, number: choiceNumber(context, i, choices.length) }));
}

/** WhatsApp's interactive list: rows with ids and titles of at most 24 characters, a body of at most 1,024. */
const WHATSAPP_LIST = { rows: 10, title: 24, description: 72, body: 1024, button: 'Choose' };

function whatsappBody(to: string, text: string, choices?: readonly ChoiceReply[]): unknown {
  const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to };
  if (!choices || choices.length > WHATSAPP_LIST.rows || text.length > WHATSAPP_LIST.body) return { ...base, type: 'text', text: { body: text } };
  const rows = choices.map(({ label, number }) => ({
    id: number,
    title: label.slice(0, WHATSAPP_LIST.title),
    ...(label.length > WHATSAPP_LIST.title ? { description: label.slice(0, WHATSAPP_LIST.description) } : {}),
  }));
  return { ...base, type: 'interactive', interactive: { type: 'list', body: { text }, action: { button: WHATSAPP_LIST.button, sections: [{ rows }] } } };
}

/** Messenger and Instagram quick replies: at most 13, titles of at most 20 characters, the number as payload. */
const quickReplies = (choices?: readonly ChoiceReply[]) =>
  choices ? { quick_replies: choices.slice(0, 13).map(({ label, number }) => ({ content_type: 'text', title: label.slice(0, 20), payload: number })) } : {};

const KINDS: Record<MetaKind, KindSpec> = {
  whatsapp: {
    object: 'whatsapp_business_account',
    textLimit: 4096,
    token: (c) => c.accessToken,
    sendPath: (c) => (c.phoneNumberId ? `${encodeURIComponent(c.phoneNumberId)}/messages` : undefined),
    sendBody: whatsappBody,
  },
  facebook: {
    object: 'page',
    textLimit: 2000,
    token: (c) => c.pageAccessToken,
    sendPath: (c) => (c.pageId ? `${encodeURIComponent(c.pageId)}/messages` : undefined),
    sendBody: (id, text, choices) => ({ recipient: { id }, messaging_type: 'RESPONSE', message: { text, ...quickReplies(choices) } }),
  },
  instagram: {
    object: 'instagram',
    textLimit: 1000,
    token: (c) => c.accessToken,
    sendPath: (c) => (c.accountId ? `${encodeURIComponent(c.accountId)}/messages` : undefined),
    sendBody: (id, text, choices) => ({ recipient: { id }, message: { text, ...quickReplies(choices) } }),
  },
};

function raise(error: MessengerError): never {
  throw error;
}

/** A Graph answer as its JSON, or the MessengerError its `error` object means. */
function graphResult(answer: ApiAnswer): Record<string, unknown> {
  const body = rec(answer.json);
  if (answer.status >= 200 && answer.status < 300) return body ?? {};
  const error = rec(body?.error);
  const code = typeof error?.code === 'number' ? error.code : undefined;
  const description = str(error?.message) ?? `Graph API answered ${answer.status}`;
  const detail = code === undefined ? description : `${description} (code ${code}${typeof error?.error_subcode === 'number' ? `/${error.error_subcode}` : ''})`;
  if (answer.status === 429 || (code !== undefined && RATE_LIMIT_CODES.has(code))) {
    return raise(new MessengerError('rateLimited', detail, answer.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS));
  }
  if (answer.status >= 500 || error?.is_transient === true) return raise(new MessengerError('unavailable', detail));
  // The rest is for good: a closed 24-hour window (10/2018278, 131047), a blocked or unknown user, a bad token.
  return raise(new MessengerError('refused', detail));
}

// --- Inbound --------------------------------------------------------------------------------------------------

function whatsappMessages(value: Record<string, unknown>): InboundMessage[] {
  const names = new Map<string, string>();
  for (const contact of list(value.contacts)) {
    const c = rec(contact);
    const name = str(rec(c?.profile)?.name);
    if (c && str(c.wa_id) && name) names.set(str(c.wa_id) as string, name);
  }
  const out: InboundMessage[] = [];
  for (const item of list(value.messages)) {
    const message = rec(item);
    const from = str(message?.from);
    const id = str(message?.id);
    const type = str(message?.type);
    if (!message || !from || !id || !type) continue;
    const media: MediaRef[] = [];
    const unsupported: string[] = [];
    let text = '';
    const body = rec(message[type]);
    const mediaId = str(body?.id);
    const caption = str(body?.caption) ?? '';
    switch (type) {
      case 'text':
        text = str(body?.body) ?? '';
        break;
      case 'image':
      case 'sticker':
        if (mediaId) media.push({ kind: type, ref: mediaId, name: type });
        text = caption;
        break;
      case 'audio':
        if (mediaId) media.push({ kind: body?.voice === true ? 'voice' : 'audio', ref: mediaId, name: body?.voice === true ? 'voice' : 'audio' });
        break;
      case 'document':
      case 'video':
        if (mediaId) media.push({ kind: type, ref: mediaId, name: str(body?.filename) ?? type });
        text = caption;
        break;
      case 'button':
        text = str(body?.text) ?? '';
        break;
      case 'interactive': {
        const reply = rec(body?.button_reply) ?? rec(body?.list_reply);
        // A clarifying choice's row id is its number: the pick, as if typed (its title may be cut to 24 characters).
        const id = str(reply?.id);
        text = (id && /^\d$/.test(id) ? id : str(reply?.title)) ?? '';
        if (!text) unsupported.push(type);
        break;
      }
      default:
        unsupported.push(type);
    }
    out.push({
      externalId: id,
      externalChatId: from,
      dialogName: names.get(from) ?? null,
      photoUrl: null,
      isGroup: false,
      senderName: names.get(from) ?? null,
      text,
      media,
      unsupported,
    });
  }
  return out;
}

/** Messenger and Instagram: `entry[].messaging[]` events; echoes of the page's own messages are not customers'. */
function messagingEvent(event: Record<string, unknown>): InboundMessage | undefined {
  const message = rec(event.message);
  const sender = str(rec(event.sender)?.id);
  const mid = str(message?.mid);
  if (!message || !sender || !mid || message.is_echo === true) return undefined;
  const media: MediaRef[] = [];
  const unsupported: string[] = [];
  for (const item of list(message.attachments)) {
    const attachment = rec(item);
    const type = str(attachment?.type) ?? 'attachment';
    const url = str(rec(attachment?.payload)?.url);
    const kinds: Record<string, MediaRef['kind']> = { image: 'image', audio: 'voice', file: 'document', video: 'video' };
    const kind = kinds[type];
    if (kind && url) media.push({ kind, ref: url, name: kind === 'voice' ? 'voice' : type });
    else unsupported.push(type);
  }
  // A tap on a quick reply (clarifying choices): its payload is the option's number, the pick as if typed.
  const payload = str(rec(message.quick_reply)?.payload);
  const text = (payload && /^\d$/.test(payload) ? payload : str(message.text)) ?? '';
  return {
    externalId: mid,
    externalChatId: sender,
    dialogName: null,
    photoUrl: null,
    isGroup: false,
    senderName: null,
    text,
    media,
    unsupported: text === '' && media.length === 0 && unsupported.length === 0 ? ['message'] : unsupported,
  };
}

function parseMeta(kind: MetaKind, body: unknown): InboundMessage[] {
  const update = rec(body);
  if (str(update?.object) !== KINDS[kind].object) return [];
  const out: InboundMessage[] = [];
  for (const entryItem of list(update?.entry)) {
    const entry = rec(entryItem);
    if (!entry) continue;
    if (kind === 'whatsapp') {
      for (const change of list(entry.changes)) {
        const value = rec(rec(change)?.value);
        if (value && str(rec(change)?.field) === 'messages') out.push(...whatsappMessages(value));
      }
    } else {
      for (const event of list(entry.messaging)) {
        const parsed = rec(event) && messagingEvent(rec(event) as Record<string, unknown>);
        if (parsed) out.push(parsed);
      }
    }
  }
  return out;
}

// --- The connector --------------------------------------------------------------------------------------------

export function createMetaConnector({ http, graphUrl, kind }: { http: MessengerHttp; graphUrl: string; kind: MetaKind }): Connector {
  const spec = KINDS[kind];
  const tokenOf = (credentials: Credentials) => spec.token(credentials) ?? raise(new MessengerError('refused', 'no access token'));
  const auth = (credentials: Credentials) => ({ authorization: `Bearer ${tokenOf(credentials)}` });

  return {
    kind,
    textLimit: spec.textLimit,

    verify(credentials, request) {
      const given = header(request.headers, META_SIGNATURE_HEADER);
      const secret = credentials.appSecret;
      if (!given || !secret) return false;
      return secretsEqual(given.toLowerCase(), `sha256=${hmacHex(secret, request.rawBody)}`);
    },

    parse: (body) => parseMeta(kind, body),

    async download(credentials, media) {
      if (kind !== 'whatsapp') {
        // Messenger and Instagram give a CDN URL that needs no token: it is never sent there.
        return { bytes: await http.download(media.ref, { guarded: true }), name: media.name };
      }
      // WhatsApp: the media id gives a short-lived URL, read with the same token.
      const info = graphResult(await http.call(`${graphUrl}/${GRAPH_VERSION}/${encodeURIComponent(media.ref)}`, { headers: auth(credentials) }));
      const url = str(info.url);
      if (!url) throw new MessengerError('refused', 'the media has no url');
      return { bytes: await http.download(url, { headers: auth(credentials), guarded: true }), name: media.name };
    },

    register: async (credentials) => credentials,
    unregister: async () => {},

    async sendText(credentials, externalChatId, text, context) {
      const path = spec.sendPath(credentials) ?? raise(new MessengerError('refused', 'the channel has no sender id'));
      graphResult(
        await http.call(`${graphUrl}/${GRAPH_VERSION}/${path}`, {
          method: 'POST',
          headers: auth(credentials),
          body: spec.sendBody(externalChatId, text, choiceReplies(context)),
        }),
      );
    },

    verifySubscription(credentials, query) {
      const expected = credentials.verifyToken;
      if (query.mode !== 'subscribe' || !expected || !secretsEqual(query.verifyToken, expected)) return undefined;
      return query.challenge;
    },
  };
}
