// The HTTP client of actions (docs/architecture.md, Agent actions): through the webhook URL guard (private, loopback,
// link-local and metadata addresses refused unless WEBHOOK_ALLOW_PRIVATE_NETWORKS; `http:` only with that switch), no
// redirect followed, `User-Agent: Parley-Action/1.0`, a JSON answer of at most 256 KB within the action's time limit.
// What went wrong is an outcome, never a throw: `refused` (the guard, a redirect, an answer that is not JSON or is too
// large), `timeout`, `http_error` (a status of 400 or more, or no answer at all).
import { Agent, request } from 'undici';
import type { UrlGuard } from '../kernel/url-guard.ts';
import { isForbiddenLiteral } from '../kernel/url-guard.ts';
import type { PreparedRequest } from './action-request.ts';

export const ACTION_USER_AGENT = 'Parley-Action/1.0';
export const MAX_ANSWER_BYTES = 256 * 1024;

export interface CallResult {
  outcome: 'ok' | 'http_error' | 'timeout' | 'refused';
  /** The shop's HTTP status; null when no answer came. */
  status: number | null;
  /** The answer parsed (null for an empty answer or one that is not JSON). */
  json: unknown;
  /** The answer as text (as much as was read). */
  text: string;
  error: string | null;
  ms: number;
}

class Refused extends Error {}

async function readAtMost(body: AsyncIterable<unknown> & { destroy(): void }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      body.destroy();
      throw new Refused(`the answer is larger than ${limit / 1024} KB`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function createActionClient(guard: UrlGuard) {
  const dispatcher = new Agent({ connect: { lookup: guard.lookup }, keepAliveTimeout: 10_000, connections: 64 });

  async function call(prepared: PreparedRequest, timeoutMs: number): Promise<CallResult> {
    const started = performance.now();
    const result = (outcome: CallResult['outcome'], fields: Partial<CallResult>): CallResult => ({
      outcome,
      status: null,
      json: null,
      text: '',
      error: null,
      ...fields,
      ms: Math.round(performance.now() - started),
    });
    const url = new URL(prepared.url);
    if (url.protocol === 'http:' && !guard.allowPrivateNetworks) return result('refused', { error: 'http is allowed only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true' });
    if (!guard.allowPrivateNetworks && isForbiddenLiteral(url)) return result('refused', { error: `refused to connect to ${url.hostname} (private network)` });
    // A timer of our own, cleared when the call ends: no abort may reach a body already given up.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const signal = controller.signal;
    const headers: Record<string, string> = { accept: 'application/json', ...prepared.headers, 'user-agent': ACTION_USER_AGENT };
    if (prepared.body !== undefined) headers['content-type'] = 'application/json';
    try {
      const response = await request(url, { method: prepared.method, dispatcher, signal, headers, body: prepared.body });
      const status = response.statusCode;
      response.body.on('error', () => {});
      if (status >= 300 && status < 400) {
        response.body.destroy();
        const location = response.headers.location;
        return result('refused', { status, error: `a redirect (HTTP ${status}${typeof location === 'string' ? ` to ${location.slice(0, 200)}` : ''}) is not followed` });
      }
      let text: string;
      try {
        text = await readAtMost(response.body, MAX_ANSWER_BYTES);
      } catch (error) {
        if (error instanceof Refused) return result('refused', { status, error: error.message });
        throw error;
      }
      let json: unknown = null;
      let parsed = text.trim() === '';
      if (!parsed) {
        try {
          json = JSON.parse(text);
          parsed = true;
        } catch {
          parsed = false;
        }
      }
      if (status >= 400) return result('http_error', { status, json, text, error: `HTTP ${status}` });
      if (!parsed) return result('refused', { status, text: text.slice(0, 8192), error: 'the answer is not JSON' });
      return result('ok', { status, json, text });
    } catch (error) {
      if (signal.aborted) return result('timeout', { error: `no answer within ${timeoutMs} ms` });
      const failure = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
      if (failure.code === 'EPRIVATEADDRESS' || failure.cause?.code === 'EPRIVATEADDRESS') {
        return result('refused', { error: failure.cause?.message ?? failure.message ?? 'refused (private network)' });
      }
      return result('http_error', { error: failure.cause?.message ?? failure.message ?? String(error) });
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    call,
    close: () => dispatcher.close(),
    /** Ends the calls in flight too (at shutdown). */
    destroy: () => dispatcher.destroy(),
  };
}

export type ActionClient = ReturnType<typeof createActionClient>;
