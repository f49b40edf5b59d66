// The HTTP client of webhook requests (spec, Events → Delivery rules): POST JSON with the spec's headers,
// a hard time limit, no redirects, at most 64 KB of the answer read (and thrown away), and connections
// only to addresses the URL guard accepts.
import { Agent, request } from 'undici';
import type { UrlGuard } from './url-guard.ts';
import { isForbiddenLiteral } from './url-guard.ts';

export const WEBHOOK_USER_AGENT = 'API-Gate-Webhook/1.0';
export const WEBHOOK_TIMEOUT_MS = 2_000;
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface WebhookResult {
  /** 2xx within the time limit. */
  ok: boolean;
  /** The receiver's HTTP status; null when no answer came. */
  status: number | null;
  durationMs: number;
  error?: string;
}

export function createWebhookClient(guard: UrlGuard, options: { timeoutMs?: number } = {}) {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const agent = new Agent({ connect: { lookup: guard.lookup }, keepAliveTimeout: 30_000, connections: 64 });

  return {
    async post(url: string, body: string, headers: Record<string, string> = {}): Promise<WebhookResult> {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const target = new URL(url);
      if (!guard.allowPrivateNetworks && isForbiddenLiteral(target)) {
        return { ok: false, status: null, durationMs: 0, error: `refused to connect to ${target.hostname} (private network)` };
      }
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const response = await request(target, {
          method: 'POST',
          dispatcher: agent,
          signal,
          headers: { 'content-type': 'application/json', 'user-agent': WEBHOOK_USER_AGENT, ...headers },
          body,
        });
        let read = 0;
        for await (const chunk of response.body) {
          read += (chunk as Buffer).length;
          if (read >= MAX_RESPONSE_BYTES) {
            response.body.destroy();
            break;
          }
        }
        const ok = response.statusCode >= 200 && response.statusCode < 300;
        return { ok, status: response.statusCode, durationMs: elapsed() };
      } catch (error) {
        const timedOut = signal.aborted;
        const cause = (error as { cause?: { message?: string } }).cause?.message;
        const message = timedOut ? `no answer within ${timeoutMs} ms` : (cause ?? (error as Error).message);
        return { ok: false, status: null, durationMs: elapsed(), error: message };
      }
    },
    close: () => agent.close(),
    /** Ends the requests in flight too (at shutdown, once their deliveries were handed back). */
    destroy: () => agent.destroy(),
  };
}

export type WebhookClient = ReturnType<typeof createWebhookClient>;
