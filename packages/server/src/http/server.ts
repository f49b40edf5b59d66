// The Fastify instance every surface is registered on: request ids, validation errors, the error handler,
// the access log, the HTTP server and its front door. No routes here.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import fastJson from 'fast-json-stringify';
import { AccessLog } from './access-log.ts';
import { registerErrorHandler } from './error-handler.ts';
import { FrontDoor } from './front-door.ts';
import { requestLog } from './request-log.ts';
import { schemaErrorFormatter, validatorCompiler } from './validation.ts';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Fastify's default: longer than the usual proxy's, so the proxy closes an idle connection first. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;
/** Request ids of this process: a random prefix and a counter (unique across processes, cheap to make). */
const REQUEST_ID_PREFIX = randomBytes(6).toString('hex');
let requestCounter = 0;
const nextRequestId = (): string => `${REQUEST_ID_PREFIX}-${(requestCounter += 1).toString(36)}`;

/** A request's id: the caller's `X-Request-Id` when it is sane, so logs can be matched across systems; a new one else. */
export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId();
}

/** `trustProxy`: TRUST_PROXY, the reverse proxies whose `X-Forwarded-For` gives `request.ip` (none: the TCP peer). */
export function createHttpServer(logger: FastifyBaseLogger, options: { trustProxy?: string[] | undefined } = {}): FastifyInstance {
  const front = new FrontDoor();
  const app = Fastify({
    loggerInstance: logger,
    // The HTTP server Fastify would make (its default timeouts, fastify/lib/server.js), whose listener asks the
    // front door first.
    serverFactory: (handler) => {
      const server = createServer((request, response) => {
        if (!front.answer(request, response)) handler(request, response);
      });
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      server.requestTimeout = 0;
      server.setTimeout(0);
      return server;
    },
    genReqId: (request) => requestIdOf(request.headers['x-request-id']),
    logController: new AccessLog(logger),
    childLoggerFactory: requestLog,
    schemaErrorFormatter,
    bodyLimit: 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
    // Rate limits, login throttles and the access log all key on request.ip.
    ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
  });
  app.decorate('frontDoor', front);
  app.addHook('preClose', (done) => {
    front.close();
    done();
  });
  app.setValidatorCompiler(validatorCompiler);
  // Fastify's own serializer (fast-json-stringify), compiled on a route's first answer rather than at start.
  app.setSerializerCompiler(({ schema }) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= fastJson(schema as Parameters<typeof fastJson>[0]))(data);
  });
  registerErrorHandler(app);
  // Hooks on every request take a callback rather than being async: no promise and no microtask per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  return app;
}
