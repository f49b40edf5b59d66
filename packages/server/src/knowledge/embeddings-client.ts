// An OpenAI-compatible embeddings provider a knowledge base may name (Ollama, OpenAI, vLLM, llama.cpp):
// `POST {baseUrl}/embeddings` with `{ model, input: [texts] }` → `data[].embedding`. Connections go through the
// private-network guard (the address checked is the one connected to), with a timeout; error texts never carry
// the key (lib/redact.ts).
import { Agent, request } from 'undici';
import { redactSecrets } from '../lib/redact.ts';
import { isForbiddenLiteral, type UrlGuard } from '../kernel/url-guard.ts';
import { cachedEmbedding } from './encoder/sentence-encoder.ts';

/** A base's provider as the client calls it (the key opened). */
export interface EmbeddingsProviderConfig {
  baseUrl: string;
  model: string;
  apiKey: string | null;
}

/** What made a vector (stored as `vectors_model`): vectors of different models are never compared. */
export function providerModel(provider: Pick<EmbeddingsProviderConfig, 'baseUrl' | 'model'>): string {
  return `${provider.model} @ ${provider.baseUrl.replace(/\/+$/, '')}`;
}

export class EmbeddingsError extends Error {}

const TIMEOUT_MS = 15_000;
/** A customer's question waits at most this long for its vector, then is answered by its words alone. */
const QUESTION_TIMEOUT_MS = 5_000;
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** Texts per request (OpenAI takes 2048; local servers are slower with large batches). */
const BATCH = 64;

export interface EmbeddingsClientDeps {
  guard: Pick<UrlGuard, 'lookup' | 'allowPrivateNetworks'>;
  timeoutMs?: number;
}

export function createEmbeddingsClient({ guard, timeoutMs = TIMEOUT_MS }: EmbeddingsClientDeps) {
  const dispatcher = new Agent({ connect: { lookup: guard.lookup }, keepAliveTimeout: 30_000 });

  function endpoint(baseUrl: string): URL {
    let url: URL;
    try {
      url = new URL(`${baseUrl.replace(/\/+$/, '')}/embeddings`);
    } catch {
      throw new EmbeddingsError('the embeddings provider URL is not a valid URL');
    }
    if (!guard.allowPrivateNetworks && isForbiddenLiteral(url)) {
      throw new EmbeddingsError(`refused to connect to ${url.hostname} (private network)`);
    }
    return url;
  }

  async function post(url: URL, provider: EmbeddingsProviderConfig, input: readonly string[], timeoutMs: number): Promise<number[][]> {
    const signal = AbortSignal.timeout(timeoutMs);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (provider.apiKey) headers.authorization = `Bearer ${provider.apiKey}`;
    let text: string;
    let status: number;
    try {
      const response = await request(url, {
        method: 'POST',
        dispatcher,
        signal,
        headers,
        body: JSON.stringify({ model: provider.model, input }),
      });
      status = response.statusCode;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_RESPONSE_BYTES) {
          response.body.destroy();
          throw new EmbeddingsError(`answer larger than ${MAX_RESPONSE_BYTES} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      text = Buffer.concat(chunks).toString('utf8');
    } catch (error) {
      if (error instanceof EmbeddingsError) throw error;
      if (signal.aborted) throw new EmbeddingsError(`no answer within ${timeoutMs} ms`);
      const failure = error as { message?: string; cause?: { message?: string } };
      throw new EmbeddingsError(failure.cause?.message ?? failure.message ?? String(error));
    }
    if (status < 200 || status >= 300) throw new EmbeddingsError(`HTTP ${status}: ${text.slice(0, 200)}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new EmbeddingsError('the answer is not JSON');
    }
    return vectorsOf(body, input.length);
  }

  return {
    /** One vector per text, in order; throws EmbeddingsError (its message free of the key). */
    async embed(provider: EmbeddingsProviderConfig, texts: readonly string[], options: { timeoutMs?: number } = {}): Promise<number[][]> {
      const url = endpoint(provider.baseUrl);
      const vectors: number[][] = [];
      try {
        for (let at = 0; at < texts.length; at += BATCH) vectors.push(...(await post(url, provider, texts.slice(at, at + BATCH), options.timeoutMs ?? timeoutMs)));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new EmbeddingsError(`embeddings provider ${url.host}: ${redactSecrets(message, [provider.apiKey])}`);
      }
      return vectors;
    },
    close: () => dispatcher.close(),
    /** Ends the requests in flight too (at shutdown, once their jobs were handed back). */
    destroy: () => dispatcher.destroy(),
  };
}

/** `data[].embedding` in input order (`index` when given), each a non-empty array of finite numbers of one length. */
function vectorsOf(body: unknown, expected: number): number[][] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== expected) throw new EmbeddingsError(`expected ${expected} embeddings in data[]`);
  const vectors: number[][] = new Array<number[]>(expected);
  data.forEach((item: unknown, position) => {
    const { embedding, index } = (item ?? {}) as { embedding?: unknown; index?: unknown };
    const at = typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < expected ? index : position;
    if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new EmbeddingsError('data[].embedding is not an array of numbers');
    }
    vectors[at] = embedding as number[];
  });
  const dimensions = vectors[0]?.length;
  if (vectors.some((vector) => vector === undefined || vector.length !== dimensions)) {
    throw new EmbeddingsError('data[] embeddings differ in length or index');
  }
  return vectors;
}

export type EmbeddingsClient = ReturnType<typeof createEmbeddingsClient>;

/** A customer's question embedded by the base's provider, with the encoder's small cache (per model). */
export function cachedProviderEmbedding(
  client: Pick<EmbeddingsClient, 'embed'>,
  size = 2000,
): (provider: EmbeddingsProviderConfig, text: string) => Promise<number[]> {
  return cachedEmbedding(
    (provider: EmbeddingsProviderConfig, text) =>
      client.embed(provider, [text], { timeoutMs: QUESTION_TIMEOUT_MS }).then((vectors) => vectors[0] ?? []),
    providerModel,
    size,
  );
}
