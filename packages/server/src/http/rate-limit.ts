// Rate limits of every surface (spec, Limits: 300 requests per 10 s per key, RateLimit-* headers). One limiter for
// all, counting in the kernel's counters (kernel/rate-counters.ts: Redis when REDIS_URL is set, this process
// otherwise or while Redis is unreachable).
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { Errors } from '../errors.ts';
import { RATE_LIMIT_WINDOW_MS, type RateCounters, type WindowCount } from '../kernel/rate-counters.ts';

/** What `child()` is given (its types still say the route's options; the route comes under `routeInfo`). */
type RouteLimit = Parameters<FastifyRateLimitStore['child']>[0] & { routeInfo?: { method?: string | string[]; url?: string } };

/** The counters as a store of @fastify/rate-limit (keys under `prefix`; a route's own limit under its route). */
function counterStore(counters: RateCounters, prefix: string): FastifyRateLimitStoreCtor {
  class CounterStore implements FastifyRateLimitStore {
    private readonly prefix: string;
    constructor(_options?: unknown, routePrefix = prefix) {
      this.prefix = routePrefix;
    }
    incr(key: string, callback: (error: Error | null, result?: WindowCount) => void, timeWindow: number): void {
      counters.hit(this.prefix + key, timeWindow).then((result) => callback(null, result), (error: Error) => callback(error));
    }
    read(key: string, callback: (error: Error | null, result?: WindowCount) => void): void {
      counters.peek(this.prefix + key).then((result) => callback(null, result), (error: Error) => callback(error));
    }
    // @fastify/rate-limit 11 passes the route's merged limit, the route itself under `routeInfo` (index.js, onRoute).
    child(limit: RouteLimit): FastifyRateLimitStore {
      const route = limit.routeInfo;
      // A limit of its own without a route (`app.rateLimit({...})`) would share one counter with every other such.
      if (route?.method === undefined || route.url === undefined) throw new Error('a rate limit of its own needs a route (config.rateLimit)');
      return new CounterStore(undefined, `${this.prefix}${[route.method].flat().join(',')}${route.url}:`);
    }
  }
  return CounterStore;
}

export interface SurfaceLimitOptions {
  counters: RateCounters;
  /** Requests per key per 10 s window (RATE_LIMIT_MAX). */
  max: number;
  /** Where this surface's counters live (surfaces never share a bucket). */
  prefix: string;
  /** The bucket of a request: its credential, or its address when it has none. */
  keyGenerator: (request: FastifyRequest) => string | Promise<string>;
}

const ALL_HEADERS = { 'ratelimit-limit': true, 'ratelimit-remaining': true, 'ratelimit-reset': true } as const;

/** `RateLimit-Policy` of a limit (draft-ietf-httpapi-ratelimit-headers). */
export function ratePolicy(max: number, windowMs: number): string {
  return `${max};w=${windowMs / 1000}`;
}

/**
 * The rate limit of one surface, on every route registered after it in `app`'s scope: RateLimit-* headers on
 * every response, 429 `Too many requests` with Retry-After past the limit. A route may set its own limit with
 * `config.rateLimit` (then `config.ratePolicy` names it).
 */
export async function registerRateLimit(app: FastifyInstance, { counters, max, prefix, keyGenerator }: SurfaceLimitOptions): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max,
    timeWindow: RATE_LIMIT_WINDOW_MS,
    keyGenerator,
    enableDraftSpec: true,
    addHeaders: { ...ALL_HEADERS, 'retry-after': true },
    addHeadersOnExceeding: ALL_HEADERS,
    store: counterStore(counters, prefix),
    // The counters fall back to this process by themselves; an error here is a bug, not Redis.
    skipOnError: false,
    errorResponseBuilder: () => Errors.tooManyRequests(),
  });
  const policy = ratePolicy(max, RATE_LIMIT_WINDOW_MS);
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('RateLimit-Policy', request.routeOptions.config.ratePolicy ?? policy);
    done(null, payload);
  });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `RateLimit-Policy` of a route with its own limit. */
    ratePolicy?: string;
  }
}

/**
 * Adds `hook` to every route registered after this call, after the route's own onRequest hooks (the rate limit
 * among them): authentication runs once the request has been counted, so refused credentials count too.
 */
export function afterRateLimit(app: FastifyInstance, hook: onRequestAsyncHookHandler): void {
  app.addHook('onRoute', (route) => {
    const hooks = route.onRequest;
    route.onRequest = hooks === undefined ? [hook] : [...(Array.isArray(hooks) ? hooks : [hooks]), hook];
  });
}
