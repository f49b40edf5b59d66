// The Fastify instance every surface is registered on: request ids, validation errors, the error handler,
// the access log. No routes here.
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import fastJson from 'fast-json-stringify';
import { AccessLog } from './access-log.ts';
import { registerErrorHandler } from './error-handler.ts';
import { requestLog } from './request-log.ts';
import { schemaErrorFormatter, validatorCompiler } from './validation.ts';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Request ids of this process: a random prefix and a counter (unique across processes, cheap to make). */
const REQUEST_ID_PREFIX = randomBytes(6).toString('hex');
let requestCounter = 0;
const nextRequestId = (): string => `${REQUEST_ID_PREFIX}-${(requestCounter += 1).toString(36)}`;

/** `trustProxy`: TRUST_PROXY, the reverse proxies whose `X-Forwarded-For` gives `request.ip` (none: the TCP peer). */
export function createHttpServer(logger: FastifyBaseLogger, options: { trustProxy?: string[] | undefined } = {}): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger,
    // A caller's request id is reused when it is sane, so logs can be matched across systems.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId();
    },
    logController: new AccessLog(logger),
    childLoggerFactory: requestLog,
    schemaErrorFormatter,
    bodyLimit: 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
    // Rate limits, login throttles and the access log all key on request.ip.
    ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
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
