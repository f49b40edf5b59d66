// The one place where errors become HTTP responses (docs/architecture.md, Decisions: error bodies).
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable, isUnstorableText } from '../db/errors.ts';
import { DomainError, type ErrorBodyKind } from '../errors.ts';
import { consoleLanguage, translateError, type ConsoleLanguage } from './console/i18n.ts';
import { describeValidationErrors } from './validation.ts';

/** Console responses speak the caller's `UserLang`; every other surface is English, as the spec writes it. */
function languageOf(request: FastifyRequest): ConsoleLanguage {
  return request.url.startsWith('/console/') ? consoleLanguage(request.headers.userlang) : 'en';
}

/** The demo catalog's Error resource (spec, area B); `code` is the status's reason phrase in snake case. */
export function demoError(status: number, message: string | readonly string[]) {
  const reason = STATUS_CODES[status] ?? (status >= 500 ? 'Internal Server Error' : 'Bad Request');
  return {
    code: reason.toLowerCase().replace(/[^a-z0-9]+/g, '_'),
    message: typeof message === 'string' ? message : message.join('; '),
    status,
  };
}

/** The body of an error: the demo catalog's Error resource under `/demo/`, the surface's own shape elsewhere. */
function errorBody(request: FastifyRequest, status: number, message: string | string[], kind: ErrorBodyKind = 'default') {
  if (request.url.startsWith('/demo/')) return demoError(status, message);
  return kind === 'auth' ? { message, code: status } : { message, statusCode: status };
}

export const DATABASE_UNAVAILABLE = 'The database does not answer; try again shortly';

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | DomainError, request, reply) => {
    if (error instanceof DomainError) {
      const message = error.bodyKind === 'auth' ? error.message : translateError(error, languageOf(request));
      return reply.code(error.status).send(errorBody(request, error.status, message, error.bodyKind));
    }
    if (error.validation) {
      const message = describeValidationErrors(
        error.validation,
        error.validationContext ?? 'request',
        languageOf(request),
        request.url.startsWith('/console/'),
      );
      return reply.code(400).send(errorBody(request, 400, message));
    }
    // A safety net behind validation (http/validation.ts): text the database refuses is the caller's input.
    if (isUnstorableText(error)) {
      request.log.warn({ err: error, route: `${request.method} ${request.routeOptions.url ?? ''}` }, 'unstorable text reached the database');
      return reply.code(400).send(errorBody(request, 400, 'Text contains characters that cannot be stored (NUL or unpaired surrogates)'));
    }
    // A database that does not answer in time (or at all): the client may try again; the process is not broken.
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error, route: `${request.method} ${request.routeOptions.url ?? ''}` }, 'the database did not answer');
      return reply.code(503).header('retry-after', '5').send(errorBody(request, 503, DATABASE_UNAVAILABLE));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send(errorBody(request, status, error.message));
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send(errorBody(request, 500, 'Internal Server Error'));
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody(request, 404, `Route ${request.method} ${request.url.split('?')[0]} not found`)),
  );
}
