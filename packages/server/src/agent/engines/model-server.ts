// Requests to an openai-compatible model server (openai-engine.ts): POST through the URL guard, the answer read up to
// MAX_RESPONSE_BYTES and parsed as JSON. 429, 5xx, timeouts and network errors are retried with backoff; then the
// request fails with an AgentEngineError.
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request, type FormData } from 'undici';
import type { UrlGuard } from '../../kernel/url-guard.ts';
import { isForbiddenLiteral } from '../../kernel/url-guard.ts';
import { AgentEngineError } from '../engine.ts';

/** Pauses before the 2nd and 3rd attempt of a request; a `Retry-After` up to MAX_RETRY_AFTER_MS is honored. */
export const BACKOFF_MS = [1_000, 2_000];
const MAX_RETRY_AFTER_MS = 10_000;
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

class RetryableError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** The model server's client: its connections (`close`, `destroy`), its endpoints' URLs and the request with retries. */
export function createModelServerClient({ guard, backoffMs }: { guard: UrlGuard; backoffMs: readonly number[] }) {
  const dispatcher = new Agent({ connect: { lookup: guard.lookup }, keepAliveTimeout: 30_000 });

  function endpoint(baseUrl: string, path: string): URL {
    let url: URL;
    try {
      url = new URL(`${baseUrl.replace(/\/+$/, '')}${path}`);
    } catch {
      // Saved values are checked (channels-service); one stored before that check must not crash a request.
      throw new AgentEngineError('the model server URL (agentEngine.baseUrl) is not a valid URL');
    }
    if (!guard.allowPrivateNetworks && isForbiddenLiteral(url)) {
      throw new AgentEngineError(`refused to connect to ${url.hostname} (private network)`);
    }
    return url;
  }

  /** One request with the retry policy; the parsed JSON answer. */
  async function send(url: URL, body: string | FormData, headers: Record<string, string>, timeoutMs: number): Promise<unknown> {
    let last = 'no attempt made';
    for (let attempt = 0; attempt <= backoffMs.length; attempt += 1) {
      try {
        return await attempt1(url, body, headers, timeoutMs);
      } catch (error) {
        if (!(error instanceof RetryableError)) throw error;
        last = error.message;
        const pause = backoffMs[attempt];
        if (pause === undefined) break;
        await sleep(Math.min(Math.max(pause, error.retryAfterMs ?? 0), MAX_RETRY_AFTER_MS));
      }
    }
    throw new AgentEngineError(`${url.pathname}: ${last} (after ${backoffMs.length + 1} attempts)`);
  }

  async function attempt1(url: URL, body: string | FormData, headers: Record<string, string>, timeoutMs: number): Promise<unknown> {
    const signal = AbortSignal.timeout(timeoutMs);
    let response;
    try {
      response = await request(url, { method: 'POST', dispatcher, signal, headers, body });
    } catch (error) {
      if (signal.aborted) throw new RetryableError(`no answer within ${timeoutMs} ms`);
      const failure = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
      const message = failure.cause?.message ?? failure.message ?? String(error);
      // The URL guard refused the resolved address: trying again cannot help.
      if (failure.code === 'EPRIVATEADDRESS' || failure.cause?.code === 'EPRIVATEADDRESS') {
        throw new AgentEngineError(`${url.pathname}: ${message}`);
      }
      throw new RetryableError(message);
    }
    let text: string;
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_RESPONSE_BYTES) throw new AgentEngineError(`answer larger than ${MAX_RESPONSE_BYTES} bytes`);
        chunks.push(chunk as Buffer);
      }
      text = Buffer.concat(chunks).toString('utf8');
    } catch (error) {
      response.body.destroy();
      if (error instanceof AgentEngineError) throw error;
      if (signal.aborted) throw new RetryableError(`no answer within ${timeoutMs} ms`);
      throw new RetryableError((error as Error).message);
    }
    const status = response.statusCode;
    if (status === 429 || status >= 500) {
      const retryAfter = Number(response.headers['retry-after']);
      throw new RetryableError(`HTTP ${status}`, Number.isFinite(retryAfter) ? retryAfter * 1000 : undefined);
    }
    if (status < 200 || status >= 300) throw new AgentEngineError(`${url.pathname}: HTTP ${status}: ${text.slice(0, 200)}`);
    try {
      return JSON.parse(text);
    } catch {
      throw new AgentEngineError(`${url.pathname}: the answer is not JSON`);
    }
  }

  return {
    endpoint,
    send,
    close: () => dispatcher.close(),
    destroy: () => dispatcher.destroy(),
  };
}
