import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

/** Paths that may hold secrets (API keys, passwords, tokens): never written to the log. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.password',
  '*.apiKey',
  '*.key',
  '*.token',
  '*.adminToken',
  '*.jwtSecret',
  '*.secretsKey',
  '*.databaseUrl',
  '*.redisUrl',
];

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
