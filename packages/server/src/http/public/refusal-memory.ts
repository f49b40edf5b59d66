// Repeated refusals answered from memory (docs/decisions.md, "A repeated refusal answered from memory"). A client that sends the same bad
// request again and again (an integration retrying a GET whose query the gateway refused) is answered from the HTTP
// server's request listener (http/front-door.ts), without Fastify's request cycle, once the gateway has refused it
// twice within REMEMBER_MS and until REMEMBER_MS after its last full answer: counted by the same rate limit, with its
// own request id and RateLimit-* headers and otherwise the status, headers and body the gateway sent. What could make
// the answer differ declines it, and the request takes the full path: another method or header, a key change of any
// kind, a count that would be refused, Redis counting (a shared count needs a round trip). Such answers have no
// access-log line each: a remembered refusal's repeats are told in one line when it is forgotten (`request refused
// again`, with `repeated` and the `reqId` of the full answer they repeated).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { FrontDoor } from '../front-door.ts';
import { RATE_LIMIT_WINDOW_MS, type RateCounters } from '../../kernel/rate-counters.ts';
import { requestIdOf } from '../server.ts';

/** How long a refusal is answered from memory after the gateway's last full answer to it. */
export const REMEMBER_MS = 1_000;
/** Distinct refusals remembered at once, and refused URLs seen once (the oldest is forgotten first). */
const MAX_REMEMBERED = 1_000;
/**
 * Request headers that leave a refusal's answer as it was: the key and the addresses are part of its identity, the
 * request id is made anew. Any other header (an `Origin`, a body's) sends the request the full way.
 */
const NEUTRAL_HEADERS = new Set([
  'host',
  'authorization',
  'user-agent',
  'accept',
  'accept-encoding',
  'accept-language',
  'connection',
  'sec-fetch-mode',
  'x-request-id',
  'x-forwarded-for',
]);

interface Refusal {
  identity: string;
  /** The id of the full answer remembered (its access line's). */
  requestId: string;
  url: string;
  /** The route's template, for the metrics. */
  route: string;
  ip: string;
  statusCode: number;
  /** The answer's headers, name then value; the request id's and rate limit's values are replaced at each answer. */
  headers: string[];
  requestIdAt: number;
  remainingAt: number;
  resetAt: number;
  body: string;
  /** The rate-limit counter the gateway counted the request in. */
  counter: string;
  forgetAt: number;
  /** Answers given from memory since the last full answer. */
  repeated: number;
}

export interface RefusalMemoryOptions {
  counters: RateCounters;
  /** The surface's limit per RATE_LIMIT_WINDOW_MS. */
  max: number;
  /** Where the `request refused again` lines go (the access log's logger). */
  logger: FastifyBaseLogger;
  front: FrontDoor;
}

/** The identity of a request: its URL, key and addresses (the method is GET, the other headers neutral). */
function identityOf(request: IncomingMessage): string {
  const { headers } = request;
  return `${request.url ?? ''}\n${headers.authorization ?? ''}\n${headers['x-forwarded-for'] ?? ''}\n${request.socket.remoteAddress ?? ''}`;
}

function neutral(request: IncomingMessage): boolean {
  for (const name in request.headers) if (!NEUTRAL_HEADERS.has(name)) return false;
  return true;
}

export function createRefusalMemory({ counters, max, logger, front }: RefusalMemoryOptions) {
  /** In the order made: the first is the oldest. */
  const remembered = new Map<string, Refusal>();
  /**
   * Refusals given once, by identity, until when a second one makes them remembered: a refusal that does not come
   * again (a mistyped query sent once) costs a note, not the answer's copy.
   */
  const seenOnce = new Map<string, number>();
  let sweep: NodeJS.Timeout | undefined;

  function noteSeen(identity: string, until: number): void {
    if (seenOnce.size >= MAX_REMEMBERED) seenOnce.delete(seenOnce.keys().next().value ?? '');
    seenOnce.set(identity, until);
    scheduleSweep();
  }

  function forget(refusal: Refusal): void {
    remembered.delete(refusal.identity);
    if (refusal.repeated === 0) return;
    const { requestId, url, ip, statusCode, repeated } = refusal;
    logger.info({ reqId: requestId, method: 'GET', url, ip, statusCode, repeated }, 'request refused again');
  }

  /**
   * Forgets what is due, then waits for the next. Both maps are in the order their entries fall due (an entry made
   * again is deleted and added anew), so what is due is at their start. Nothing, a key least of all (an identity
   * holds the `Authorization` value), is kept long after it is due.
   */
  function sweepDue(): void {
    sweep = undefined;
    const now = Date.now();
    for (const refusal of remembered.values()) {
      if (refusal.forgetAt > now) break;
      forget(refusal);
    }
    for (const [identity, until] of seenOnce) {
      if (until > now) break;
      seenOnce.delete(identity);
    }
    scheduleSweep();
  }

  function scheduleSweep(): void {
    if (sweep !== undefined) return;
    const next = Math.min(remembered.values().next().value?.forgetAt ?? Infinity, seenOnce.values().next().value ?? Infinity);
    if (next === Infinity) return;
    sweep = setTimeout(sweepDue, Math.max(0, next - Date.now()) + 10);
    sweep.unref();
  }

  function forgetAll(): void {
    if (sweep !== undefined) clearTimeout(sweep);
    sweep = undefined;
    for (const refusal of [...remembered.values()]) forget(refusal);
    seenOnce.clear();
  }

  function answer(request: IncomingMessage, response: ServerResponse): boolean {
    if (remembered.size === 0 || request.method !== 'GET' || !neutral(request)) return false;
    const refusal = remembered.get(identityOf(request));
    if (refusal === undefined) return false;
    const started = front.observed ? performance.now() : 0;
    const now = Date.now();
    if (refusal.forgetAt <= now) {
      // Still coming: its next full answer makes it remembered again at once.
      forget(refusal);
      noteSeen(refusal.identity, now + REMEMBER_MS);
      return false;
    }
    // Past the limit the full path answers the 429 (counting this request once more, which changes nothing there).
    const count = counters.hitAtOnce(refusal.counter, RATE_LIMIT_WINDOW_MS);
    if (count === undefined || count.current > max) return false;
    const headers = refusal.headers.slice();
    headers[refusal.requestIdAt] = requestIdOf(request.headers['x-request-id']);
    headers[refusal.remainingAt] = String(Math.max(0, max - count.current));
    headers[refusal.resetAt] = String(Math.ceil(count.ttl / 1000));
    response.writeHead(refusal.statusCode, headers);
    response.end(refusal.body);
    refusal.repeated += 1;
    if (front.observed) front.answered('GET', refusal.route, refusal.statusCode, (performance.now() - started) / 1000);
    return true;
  }

  return {
    answer,
    /** Forgets every refusal (a key or subscription changed), telling their repeats. */
    forgetAll,
    /**
     * Remembers the gateway's full answer to a GET refused for its URL (path or query) with an authenticated key,
     * counted in `counter`, from its last onSend hook: `body` is the answer's payload. A route with a rate limit of
     * its own is not remembered (its counter is another).
     */
    remember(request: FastifyRequest, reply: FastifyReply, body: string, counter: string): void {
      // Its answer may hold what another header asked for: it is not what a neutral request gets.
      if (!neutral(request.raw)) return;
      const identity = identityOf(request.raw);
      const now = Date.now();
      const previous = remembered.get(identity);
      if (previous !== undefined) {
        forget(previous);
      } else {
        const until = seenOnce.get(identity);
        seenOnce.delete(identity);
        if (until === undefined || until <= now) {
          noteSeen(identity, now + REMEMBER_MS);
          return;
        }
      }
      const route = request.routeOptions;
      if (route.config.rateLimit !== undefined) return;
      const headers: string[] = [];
      const sent = reply.getHeaders();
      for (const name in sent) {
        const value = sent[name];
        if (value === undefined) continue;
        // A header sent twice (none on a refusal today) is not replayed: such an answer is not remembered.
        if (Array.isArray(value)) return;
        headers.push(name, String(value));
      }
      // Set by Fastify after the onSend hooks.
      headers.push('content-length', String(Buffer.byteLength(body)));
      /** Where the value of the header `name` is (0: not sent). */
      const at = (name: string) => {
        for (let index = 0; index < headers.length; index += 2) if (headers[index] === name) return index + 1;
        return 0;
      };
      const requestIdAt = at('x-request-id');
      const remainingAt = at('ratelimit-remaining');
      const resetAt = at('ratelimit-reset');
      if (requestIdAt === 0 || remainingAt === 0 || resetAt === 0) return;
      if (remembered.size >= MAX_REMEMBERED) {
        const oldest = remembered.values().next().value;
        if (oldest !== undefined) forget(oldest);
      }
      remembered.set(identity, {
        identity,
        requestId: request.id,
        url: request.url,
        route: route.url ?? request.url,
        ip: request.ip,
        statusCode: reply.statusCode,
        headers,
        requestIdAt,
        remainingAt,
        resetAt,
        body,
        counter,
        forgetAt: now + REMEMBER_MS,
        repeated: 0,
      });
      scheduleSweep();
    },
  };
}
