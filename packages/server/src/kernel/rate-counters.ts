// The rate-limit counters every surface counts into (http/rate-limit.ts puts them in front of the routes): fixed
// windows counted in Redis when REDIS_URL is set (several API processes share them), in this process otherwise,
// and in this process too while Redis is unreachable: a request never waits on Redis (no offline queue, a short
// command timeout), the outage is logged once with its end, and /healthz reports it. A command that merely
// answers late (a loaded machine) is not an outage: see `createRateCounters`. Also the unknown-key guard built on
// them, which the public API and the demo catalog share.
import { createRequire } from 'node:module';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type * as IORedis from 'ioredis';
import type { Redis } from 'ioredis';
import { LruMap } from 'toad-cache';
import { Errors } from '../errors.ts';

export const RATE_LIMIT_WINDOW_MS = 10_000;

export interface WindowCount {
  /** Hits in the current window, this one included. */
  current: number;
  /** Milliseconds until the window ends. */
  ttl: number;
}

export type RedisState = 'none' | 'up' | 'down';

export interface RateCounters {
  /** Counts one hit of `key` in its fixed window (the first hit starts a window of `windowMs`). */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /** The count of `key`'s current window without counting (0 when none). */
  peek(key: string): Promise<WindowCount>;
  /**
   * Counts one hit without waiting when this process counts alone (no REDIS_URL), for an answer given at once
   * (http/public/refusal-memory.ts); undefined, counting nothing, when Redis counts.
   */
  hitAtOnce(key: string, windowMs: number): WindowCount | undefined;
  /** Redis as the last commands found it: `none` without REDIS_URL. */
  redisState(): RedisState;
  close(): Promise<void>;
}

/** How long a request waits for its Redis command before it is counted in this process instead. */
export const REDIS_COMMAND_TIMEOUT_MS = 500;
/**
 * How long the ping sent after a late command may take before Redis counts as down; also the client's own bound on
 * any command (the handshake's included), which the requests' shorter deadline below leaves to the ping.
 */
export const REDIS_PING_TIMEOUT_MS = 2_000;
/** A slow Redis is logged at most this often (with the number of late commands since the last line). */
const SLOW_LOG_INTERVAL_MS = 60_000;
/** After a failed command, Redis is left alone this long (a hung server must not cost every request the timeout). */
const REDIS_RETRY_AFTER_MS = 1_000;
/** How long the start waits for the first connection before serving with in-process counters. */
const FIRST_CONNECTION_MS = 2_000;

// INCR with the window's expiry set by the first hit; PTTL -1 (an expiry lost) restarts the window.
const HIT_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if current == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}`;
const PEEK_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current then return {0, 0} end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = 0 end
return {tonumber(current), ttl}`;

/** A command that got no answer within REDIS_COMMAND_TIMEOUT_MS (it goes on; its answer is then ignored). */
class LateAnswer extends Error {}

/** `command`'s answer, or a LateAnswer after `ms`. */
function withinMs<T>(command: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new LateAnswer(`no answer from redis within ${ms} ms`)), ms);
    command.then(
      (answer) => {
        clearTimeout(timer);
        resolve(answer);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

type ScriptedRedis = Redis & {
  parleyHit(key: string, windowMs: number): Promise<[number, number]>;
  parleyPeek(key: string): Promise<[number, number]>;
};

/** Counters in this process: the same fixed windows as the Redis script. */
function createLocalCounters() {
  const windows = new LruMap<{ count: number; endsAt: number }>(100_000);
  return {
    hit(key: string, windowMs: number): WindowCount {
      const now = Date.now();
      let window = windows.get(key);
      if (!window || window.endsAt <= now) {
        window = { count: 0, endsAt: now + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { current: window.count, ttl: window.endsAt - now };
    },
    peek(key: string): WindowCount {
      const now = Date.now();
      const window = windows.get(key);
      return !window || window.endsAt <= now ? { current: 0, ttl: 0 } : { current: window.count, ttl: window.endsAt - now };
    },
  };
}

/**
 * The counters, in Redis when `redisUrl` is set. Redis is down (each process counts alone until it is back) when
 * its connection fails or closes, or when a command answered late and a ping then gets no answer within
 * REDIS_PING_TIMEOUT_MS either. A late command whose ping answers is slow, not down: that one request is counted
 * in this process, the next ones go to Redis again, and it is logged as `redis slow`.
 */
export function createRateCounters({ redisUrl, logger }: { redisUrl: string | undefined; logger: FastifyBaseLogger }): RateCounters & {
  /** Settles when the first connection to Redis succeeded or failed (at once without Redis). */
  connected: Promise<void>;
} {
  const local = createLocalCounters();
  if (!redisUrl) {
    return {
      hit: async (key, windowMs) => local.hit(key, windowMs),
      peek: async (key) => local.peek(key),
      hitAtOnce: (key, windowMs) => local.hit(key, windowMs),
      redisState: () => 'none',
      close: async () => {},
      connected: Promise.resolve(),
    };
  }

  // ioredis (about 20 MB and 0.3 s to load) is required only when REDIS_URL is set.
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof IORedis;
  const redis = new RedisClient(redisUrl, {
    // A command while disconnected fails at once rather than waiting for a reconnection.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A request's own command is bounded by REDIS_COMMAND_TIMEOUT_MS below; this bounds the rest.
    commandTimeout: REDIS_PING_TIMEOUT_MS,
    connectTimeout: 2_000,
    // Reconnects forever in the background, at most every 2 s.
    retryStrategy: (times) => Math.min(100 * times, 2_000),
  }) as ScriptedRedis;
  redis.defineCommand('parleyHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  redis.defineCommand('parleyPeek', { numberOfKeys: 1, lua: PEEK_SCRIPT });

  let down = false;
  let closing = false;
  let skipUntil = 0;
  const markDown = (error: unknown) => {
    skipUntil = Date.now() + REDIS_RETRY_AFTER_MS;
    if (down || closing) return;
    down = true;
    logger.warn({ err: error }, 'redis unreachable: rate limits are counted in each process until it is back');
  };
  const markUp = () => {
    if (!down) return;
    down = false;
    skipUntil = 0;
    logger.info('redis reachable again: rate limits are shared again');
  };
  let settle: () => void = () => {};
  const connected = new Promise<void>((resolve) => {
    settle = resolve;
    // A server that accepts but never answers gives neither `ready` nor `error`: the start does not wait for it.
    setTimeout(() => {
      if (redis.status !== 'ready') markDown(new Error(`no answer from redis within ${FIRST_CONNECTION_MS} ms`));
      resolve();
    }, FIRST_CONNECTION_MS).unref();
  });
  redis.on('ready', () => {
    markUp();
    settle();
  });
  redis.on('error', (error: unknown) => {
    markDown(error);
    settle();
  });
  redis.on('close', () => markDown(new Error('connection closed')));

  const usable = () => redis.status === 'ready' && Date.now() >= skipUntil;

  let pinging = false;
  let lateSinceLog = 0;
  let slowLoggedAt = -Infinity;
  /** A late answer: a ping tells a slow Redis (logged, still used) from a hung one (down). */
  const late = (error: LateAnswer) => {
    lateSinceLog += 1;
    if (pinging) return;
    pinging = true;
    const started = performance.now();
    redis.ping().then(
      () => {
        pinging = false;
        if (Date.now() - slowLoggedAt < SLOW_LOG_INTERVAL_MS) return;
        slowLoggedAt = Date.now();
        logger.warn(
          { lateCommands: lateSinceLog, pingMs: Math.round(performance.now() - started) },
          `redis slow: ${error.message}, but it answers a ping; the late requests were counted in this process, rate limits stay shared`,
        );
        lateSinceLog = 0;
      },
      (pingError: unknown) => {
        pinging = false;
        markDown(new Error(`${error.message}, nor to a ping within ${REDIS_PING_TIMEOUT_MS} ms`, { cause: pingError }));
      },
    );
  };
  const failed = (error: unknown) => {
    if (error instanceof LateAnswer && !down) late(error);
    else markDown(error);
  };
  /** The answer of `command`, or undefined when Redis is not to be asked or did not answer in time. */
  const ask = async <T>(command: () => Promise<T>): Promise<T | undefined> => {
    if (!usable()) return undefined;
    try {
      const answer = await withinMs(command(), REDIS_COMMAND_TIMEOUT_MS);
      markUp();
      return answer;
    } catch (error) {
      failed(error);
      return undefined;
    }
  };

  return {
    async hit(key, windowMs) {
      const answer = await ask(() => redis.parleyHit(key, windowMs));
      return answer ? { current: answer[0], ttl: answer[1] } : local.hit(key, windowMs);
    },
    async peek(key) {
      const answer = await ask(() => redis.parleyPeek(key));
      return answer ? { current: answer[0], ttl: answer[1] } : local.peek(key);
    },
    hitAtOnce: () => undefined,
    redisState: () => (down || redis.status !== 'ready' ? 'down' : 'up'),
    async close() {
      closing = true;
      // No goodbye without a ready connection, and a server that does not answer QUIT is not waited for.
      if (redis.status === 'ready') await withinMs(redis.quit(), REDIS_COMMAND_TIMEOUT_MS).catch(() => redis.disconnect());
      else redis.disconnect();
    },
    connected,
  };
}

/** Unknown API keys one address may send per window before its requests with keys not known are refused. */
export const INVALID_KEYS_PER_IP = 30;

/**
 * A per-address cap on unknown API keys: each random key would otherwise get its own bucket and a database lookup.
 * Past `max` unknown keys in a window, the address's requests with keys this process has not seen authenticate lately
 * share one bucket and are answered 429 before any lookup, until the window ends.
 */
export function createInvalidKeyGuard({ counters, max = INVALID_KEYS_PER_IP }: { counters: RateCounters; max?: number }) {
  /** Keys that authenticated lately (any address): a key in use keeps working from an address that sends bad ones. */
  const recentlyValid = new LruMap<true>(10_000, 10 * 60_000);
  const counterKey = (request: FastifyRequest) => `parley:badkeys:${request.ip}`;

  return {
    /** Whether the request is refused before any lookup (decided once, in the bucket's key generator). */
    async refused(request: FastifyRequest, keyHash: string | undefined): Promise<boolean> {
      if (keyHash === undefined || recentlyValid.get(keyHash)) return false;
      return (await counters.peek(counterKey(request))).current >= max;
    },
    /** The 429 of a refused request (the limiter has set the RateLimit-* headers of its bucket). */
    async refuse(request: FastifyRequest, reply: { header(name: string, value: string): unknown }): Promise<never> {
      const { ttl } = await counters.peek(counterKey(request));
      reply.header('retry-after', String(Math.max(1, Math.ceil(ttl / 1000))));
      throw Errors.tooManyRequests();
    },
    async unknownKey(request: FastifyRequest): Promise<void> {
      await counters.hit(counterKey(request), RATE_LIMIT_WINDOW_MS);
    },
    validKey(keyHash: string): void {
      recentlyValid.set(keyHash, true);
    },
  };
}

export type InvalidKeyGuard = ReturnType<typeof createInvalidKeyGuard>;
