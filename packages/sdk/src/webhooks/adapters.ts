// The receiver behind Node's `http`, Express and Fastify. Each reads the raw body (the signature covers the bytes),
// answers at once, then runs the callbacks. Nothing of Express or Fastify is imported: they are typed by shape.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookReceiver, WebhookResult } from './receiver.ts';

class BodyTooLarge extends Error {}

/** Reads a request's body, at most `limit` bytes. */
function readBody(request: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    request.on('data', (chunk: Uint8Array) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners('data');
        request.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      const body = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        body.set(chunk, offset);
        offset += chunk.length;
      }
      resolve(body);
    });
    request.on('error', reject);
  });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.statusCode = status;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.end(JSON.stringify(body));
}

/** Answers a request whose raw body is known, then starts the callbacks. */
async function respond(receiver: WebhookReceiver, request: IncomingMessage, response: ServerResponse, body: Uint8Array) {
  let result: WebhookResult;
  try {
    result = await receiver.handle({ body, headers: request.headers });
  } catch (error) {
    // A dedupe store that failed: 500, so the server retries the delivery.
    send(response, 500, { message: 'Webhook receiver failed' });
    console.error('parley webhook receiver failed', error);
    return;
  }
  send(response, result.status, result.body);
  void result.dispatch();
}

async function handleNode(receiver: WebhookReceiver, request: IncomingMessage, response: ServerResponse, preRead?: Uint8Array) {
  if (request.method !== 'POST') {
    response.setHeader('allow', 'POST');
    return send(response, 405, { message: 'Method not allowed' });
  }
  let body = preRead;
  if (!body) {
    try {
      body = await readBody(request, receiver.maxBodyBytes);
    } catch (error) {
      return send(response, error instanceof BodyTooLarge ? 413 : 400, { message: error instanceof BodyTooLarge ? 'Body too large' : 'Bad request' });
    }
  }
  await respond(receiver, request, response, body);
}

/**
 * A request listener for Node's `http.createServer`, or to call from your own routing:
 * `http.createServer(createNodeHandler(receiver))`. Only POST is accepted.
 */
export function createNodeHandler(receiver: WebhookReceiver): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => void handleNode(receiver, request, response);
}

/** The parts of an Express request this reads. */
export type ExpressLikeRequest = IncomingMessage & { body?: unknown };

/**
 * Express middleware: `app.post('/parley/webhook', createExpressHandler(receiver))`. Works with no body parser on
 * the route (it reads the stream) or after `express.raw({ type: 'application/json' })`. After `express.json()` the
 * bytes are gone and a signature cannot be checked: with a secret that is answered 500 with an explanation.
 */
export function createExpressHandler(receiver: WebhookReceiver): (request: ExpressLikeRequest, response: ServerResponse) => void {
  return (request, response) => {
    const parsed = request.body;
    if (parsed instanceof Uint8Array) return void handleNode(receiver, request, response, parsed);
    if (typeof parsed === 'string') return void handleNode(receiver, request, response, new TextEncoder().encode(parsed));
    if (parsed !== undefined && typeof parsed === 'object' && request.readableEnded) {
      if (receiver.verifiesSignatures) {
        return send(response, 500, {
          message: 'The body was parsed before the Parley webhook handler: mount it before express.json(), or use express.raw()',
        });
      }
      return void handleNode(receiver, request, response, new TextEncoder().encode(JSON.stringify(parsed)));
    }
    return void handleNode(receiver, request, response);
  };
}

/** The parts of a Fastify instance the plugin uses. */
export interface FastifyLikeInstance {
  addContentTypeParser(
    contentType: string,
    options: { parseAs: 'buffer'; bodyLimit?: number },
    parser: (request: unknown, body: Buffer, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
  post(path: string, handler: (request: FastifyLikeRequest, reply: FastifyLikeReply) => Promise<unknown>): unknown;
}
export interface FastifyLikeRequest {
  body: unknown;
  headers: IncomingMessage['headers'];
}
export interface FastifyLikeReply {
  code(status: number): FastifyLikeReply;
  send(body: unknown): FastifyLikeReply;
}

export interface FastifyWebhookOptions {
  receiver: WebhookReceiver;
  /** Route of the webhook inside the plugin's prefix (default `/`). */
  path?: string;
}

/**
 * A Fastify plugin: `app.register(parleyWebhookPlugin, { receiver, prefix: '/parley/webhook' })`. Encapsulated: its
 * raw JSON parser (the signature covers the bytes) applies to its own route only.
 */
export async function parleyWebhookPlugin(fastify: FastifyLikeInstance, options: FastifyWebhookOptions): Promise<void> {
  const { receiver } = options;
  const raw = (_request: unknown, body: Buffer, done: (error: Error | null, body?: unknown) => void) => done(null, body);
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: receiver.maxBodyBytes }, raw);
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: receiver.maxBodyBytes }, raw);
  fastify.post(options.path ?? '/', async (request, reply) => {
    const body = request.body instanceof Uint8Array ? request.body : new Uint8Array();
    const result = await receiver.handle({ body, headers: request.headers });
    reply.code(result.status).send(result.body);
    // After the answer is on its way.
    setImmediate(() => void result.dispatch());
    return reply;
  });
}
