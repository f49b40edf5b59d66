// HTTP to the messengers: JSON calls to their APIs (base URLs from the operator settings, so not guarded) and
// media downloads from URLs an update names (Meta's CDN, Viber's media links), which go through the URL guard
// like every URL that comes from outside. Hard time limits, bounded answers, no redirects for API calls.
import { Agent, request, type Dispatcher } from 'undici';
import { MAX_FILE_BYTES } from '@parley/contracts';
import type { UrlGuard } from './url-guard.ts';
import { isForbiddenLiteral } from './url-guard.ts';

/**
 * A messenger's answer that is not a success. `refused`: it will not do it (blocked bot, closed 24-hour window,
 * bad token, bad webhook URL), never retried; `rateLimited`: come back after `retryAfterMs`; `unavailable`: 5xx,
 * timeout or network, retried with backoff.
 */
export class MessengerError extends Error {
  constructor(
    readonly reason: 'refused' | 'rateLimited' | 'unavailable',
    readonly description: string,
    readonly retryAfterMs?: number,
  ) {
    super(description);
    this.name = 'MessengerError';
  }
}

const API_TIMEOUT_MS = 15_000;
const DOWNLOAD_TIMEOUT_MS = 30_000;
const MAX_API_ANSWER_BYTES = 1024 * 1024;

export interface ApiAnswer {
  status: number;
  /** The parsed JSON body; undefined when it was not JSON. */
  json: unknown;
  /** `Retry-After` in milliseconds, when given in seconds. */
  retryAfterMs: number | undefined;
}

async function readBounded(body: Dispatcher.ResponseData['body'], max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > max) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function retryAfter(value: string | string[] | undefined): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || !/^\d+$/.test(raw.trim())) return undefined;
  return Number(raw.trim()) * 1000;
}

function networkError(error: unknown, timedOut: boolean, timeoutMs: number): MessengerError {
  if (error instanceof MessengerError) return error;
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  return new MessengerError('unavailable', timedOut ? `no answer within ${timeoutMs} ms` : (cause ?? (error as Error).message));
}

export function createMessengerHttp(guard: Pick<UrlGuard, 'lookup' | 'allowPrivateNetworks'>) {
  const api = new Agent({ keepAliveTimeout: 30_000, connections: 32 });
  const media = new Agent({ connect: { lookup: guard.lookup }, keepAliveTimeout: 10_000, connections: 16 });

  return {
    /** A JSON call to a messenger's API; only a network failure or timeout throws (as `unavailable`). */
    async call(
      url: string,
      options: { method?: 'GET' | 'POST' | 'PUT' | 'PATCH'; headers?: Record<string, string>; body?: unknown } = {},
    ): Promise<ApiAnswer> {
      const signal = AbortSignal.timeout(API_TIMEOUT_MS);
      try {
        const response = await request(url, {
          method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
          dispatcher: api,
          signal,
          headers: { accept: 'application/json', ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
          ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        });
        const bytes = await readBounded(response.body, MAX_API_ANSWER_BYTES);
        let json: unknown;
        try {
          json = bytes ? JSON.parse(bytes.toString('utf8')) : undefined;
        } catch {
          json = undefined;
        }
        return { status: response.statusCode, json, retryAfterMs: retryAfter(response.headers['retry-after']) };
      } catch (error) {
        throw networkError(error, signal.aborted, API_TIMEOUT_MS);
      }
    },

    /**
     * The bytes of a file, at most the spec's 10 MB. `guarded`: the URL came in an update, so it goes through the
     * URL guard; a messenger's own API URL (Telegram's file path) does not.
     */
    async download(url: string, options: { headers?: Record<string, string>; guarded: boolean }): Promise<Buffer> {
      const target = new URL(url);
      if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new MessengerError('refused', 'media URL is not http(s)');
      if (options.guarded && !guard.allowPrivateNetworks && isForbiddenLiteral(target)) {
        throw new MessengerError('refused', `refused to download from ${target.hostname} (private network)`);
      }
      const signal = AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS);
      try {
        const response = await request(target, {
          method: 'GET',
          dispatcher: options.guarded ? media : api,
          signal,
          ...(options.headers ? { headers: options.headers } : {}),
        });
        if (response.statusCode < 200 || response.statusCode >= 300) {
          await response.body.dump();
          const reason = response.statusCode >= 500 || response.statusCode === 429 ? 'unavailable' : 'refused';
          throw new MessengerError(reason, `media download answered ${response.statusCode}`);
        }
        const bytes = await readBounded(response.body, MAX_FILE_BYTES);
        if (!bytes) throw new MessengerError('refused', 'media file over 10 MB');
        return bytes;
      } catch (error) {
        throw networkError(error, signal.aborted, DOWNLOAD_TIMEOUT_MS);
      }
    },

    async close(): Promise<void> {
      await Promise.all([api.close(), media.close()]);
    },
    /** Ends the requests in flight too (at shutdown, once their jobs were handed back). */
    async destroy(): Promise<void> {
      await Promise.all([api.destroy(), media.destroy()]);
    },
  };
}

export type MessengerHttp = ReturnType<typeof createMessengerHttp>;
