import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

/** Paths that may hold secrets (API keys, passwords, tokens): never written to the log, at any level. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  // Libraries log their options at trace level (e.g. the multipart parser's `busboyOptions.headers`).
  '*.headers.authorization',
  '*.headers.cookie',
  '*.*.headers.authorization',
  '*.*.headers.cookie',
  '*.password',
  '*.apiKey',
  '*.key',
  '*.token',
  '*.adminToken',
  '*.jwtSecret',
  '*.secretsKey',
  '*.metricsToken',
  '*.databaseUrl',
  '*.redisUrl',
];

interface SerializedError {
  type: string;
  message: string;
  stack?: string;
  code?: unknown;
  cause?: SerializedError;
}

/**
 * Errors as log records, without the values a failed query was given: Drizzle puts every parameter (a webhook
 * secret, a model key, a bot token being saved) into its message, and PostgreSQL's `detail` can hold the whole
 * failing row. The query text, the SQLSTATE and the server's message stay, which is what a reader needs.
 */
export function serializeError(error: unknown, depth = 0): SerializedError {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error) };
  const record = error as Error & { query?: unknown; params?: unknown; code?: unknown };
  // Drizzle's wrapper (`Failed query: …\nparams: …`); a driver's own error (PGlite's also carries query and
  // params as properties, which are not copied) keeps the server's message.
  const isQuery = typeof record.query === 'string' && error.message.startsWith('Failed query:');
  const message = isQuery ? `Failed query: ${String(record.query)}` : error.message;
  const out: SerializedError = { type: error.name, message };
  if (error.stack) out.stack = isQuery ? `${error.name}: ${message}\n${error.stack.split('\n').filter((l) => /^\s+at /.test(l)).join('\n')}` : error.stack;
  if (record.code !== undefined) out.code = record.code;
  if (error.cause !== undefined && depth < 5) out.cause = serializeError(error.cause, depth + 1);
  return out;
}

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError },
  };
  return destination ? pino(options, destination) : pino(options);
}
