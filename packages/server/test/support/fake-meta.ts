// A fake Meta Graph API on a local port: sending messages for WhatsApp (/{phone-number-id}/messages), Messenger
// and Instagram (/{page-or-account-id}/messages) with a bearer token, WhatsApp media (/{media-id} → url → bytes)
// and a CDN for Messenger/Instagram attachment URLs. Answers like Graph: error objects with code and subcode,
// 429 with Retry-After, the 24-hour window closed (10/2018278, WhatsApp 131047).
import { startFakeServer, type Answer, type FakeServer, type RecordedRequest } from './fake-server.ts';

export const GRAPH_VERSION = 'v21.0';

export interface FakeMeta extends FakeServer {
  /** A sender id (phone number id, page id, Instagram account id) and the token that may send as it. */
  addSender(id: string, token: string): void;
  /** WhatsApp media: `GET /{id}` (with a token of a sender) gives a URL serving the bytes. */
  addMedia(id: string, bytes: Buffer, mimeType: string): void;
  /** A public CDN URL serving the bytes (Messenger and Instagram attachments). */
  cdnUrl(name: string, bytes: Buffer): string;
  /** Sending to this recipient answers the closed 24-hour window error. */
  closeWindow(recipient: string): void;
  /** The next `count` sends answer 429 with `Retry-After`. */
  rateLimitNext(count: number, retryAfterSeconds: number): void;
  /** Message sends, in order: the sender id, the token used and the body. */
  sends(): { senderId: string; token: string | undefined; body: Record<string, unknown> }[];
}

function graphError(status: number, message: string, code: number, subcode?: number): Answer {
  return {
    status,
    json: { error: { message, type: 'OAuthException', code, ...(subcode ? { error_subcode: subcode } : {}), fbtrace_id: 'AbCdEf' } },
  };
}

export async function startFakeMeta(): Promise<FakeMeta> {
  const senders = new Map<string, string>();
  const media = new Map<string, { bytes: Buffer; mimeType: string }>();
  const cdn = new Map<string, Buffer>();
  const closed = new Set<string>();
  let rateLimited = 0;
  let retryAfter = 1;
  let base = '';

  const tokenOf = (request: RecordedRequest) => /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];

  function answer(request: RecordedRequest): Answer {
    const cdnFile = /^\/cdn\/(.+)$/.exec(request.path);
    if (cdnFile) {
      const bytes = cdn.get(cdnFile[1] ?? '');
      return bytes ? { status: 200, bytes } : { status: 404, json: {} };
    }
    const mediaFile = /^\/media-download\/(.+)$/.exec(request.path);
    if (mediaFile) {
      const item = media.get(mediaFile[1] ?? '');
      if (![...senders.values()].includes(tokenOf(request) ?? '')) return graphError(401, 'Invalid OAuth access token.', 190);
      return item ? { status: 200, bytes: item.bytes } : { status: 404, json: {} };
    }
    const send = new RegExp(`^/${GRAPH_VERSION.replace('.', '\\.')}/([^/]+)/messages$`).exec(request.path);
    if (send && request.method === 'POST') {
      const senderId = send[1] ?? '';
      if (!senders.has(senderId) || senders.get(senderId) !== tokenOf(request)) {
        return graphError(401, 'Invalid OAuth access token - Cannot parse access token', 190);
      }
      if (rateLimited > 0) {
        rateLimited -= 1;
        return { ...graphError(429, '(#4) Application request limit reached', 4), headers: { 'retry-after': String(retryAfter) } };
      }
      const body = request.json ?? {};
      const recipient = String(body.to ?? (body.recipient as { id?: string } | undefined)?.id ?? '');
      if (closed.has(recipient)) {
        return body.messaging_product === 'whatsapp'
          ? graphError(400, 'Re-engagement message: more than 24 hours have passed since the recipient last replied', 131047)
          : graphError(400, '(#10) This message is sent outside of allowed window.', 10, 2018278);
      }
      return body.messaging_product === 'whatsapp'
        ? { status: 200, json: { messaging_product: 'whatsapp', contacts: [{ input: recipient, wa_id: recipient }], messages: [{ id: `wamid.${request.at}` }] } }
        : { status: 200, json: { recipient_id: recipient, message_id: `m_${request.at}` } };
    }
    const mediaInfo = new RegExp(`^/${GRAPH_VERSION.replace('.', '\\.')}/([^/]+)$`).exec(request.path);
    if (mediaInfo && request.method === 'GET') {
      if (![...senders.values()].includes(tokenOf(request) ?? '')) return graphError(401, 'Invalid OAuth access token.', 190);
      const item = media.get(mediaInfo[1] ?? '');
      if (!item) return graphError(400, 'Unsupported get request.', 100, 33);
      return { status: 200, json: { url: `${base}/media-download/${mediaInfo[1]}`, mime_type: item.mimeType, id: mediaInfo[1], messaging_product: 'whatsapp' } };
    }
    return graphError(404, 'Unknown path components', 2500);
  }

  const server = await startFakeServer(answer);
  base = server.url;
  return {
    ...server,
    addSender: (id, token) => senders.set(id, token),
    addMedia: (id, bytes, mimeType) => media.set(id, { bytes, mimeType }),
    cdnUrl(name, bytes) {
      cdn.set(name, bytes);
      return `${base}/cdn/${name}`;
    },
    closeWindow: (recipient) => closed.add(recipient),
    rateLimitNext(count, seconds) {
      rateLimited = count;
      retryAfter = seconds;
    },
    sends: () =>
      server.requests
        .filter((request) => request.method === 'POST' && request.path.endsWith('/messages'))
        .map((request) => ({
          senderId: request.path.split('/')[2] ?? '',
          token: tokenOf(request),
          body: request.json ?? {},
        })),
  };
}
