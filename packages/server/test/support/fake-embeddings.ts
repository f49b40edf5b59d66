// An OpenAI-compatible embeddings server (`POST /v1/embeddings`): a real local HTTP server that records every
// request and embeds each text by hashing its words, after a few words are mapped to a shared concept, into a
// small vector. So texts that share words or concepts are close (the paraphrase a base's words alone miss), and a
// test can tell the provider's vectors from the words. `failing` makes it fail in one of a few ways.
import { createHash } from 'node:crypto';
import { startFakeServer, type FakeServer, type RecordedRequest } from './fake-server.ts';

export const FAKE_EMBEDDING_DIMENSIONS = 64;

/** Words that mean the same to the fake model (and share no stem, so BM25F and WordNet do not join them). */
const CONCEPTS: Record<string, string> = {
  refund: 'refund',
  refunds: 'refund',
  money: 'refund',
  reimbursed: 'refund',
  parcel: 'delivery',
  delivery: 'delivery',
  shipping: 'delivery',
  arrive: 'delivery',
};
const IGNORED = new Set(['a', 'an', 'the', 'i', 'my', 'me', 'do', 'does', 'can', 'how', 'when', 'will', 'get', 'is', 'to', 'you', 'your', 'of', 'be']);

function bucket(token: string): number {
  return createHash('sha256').update(token).digest().readUInt32BE(0) % FAKE_EMBEDDING_DIMENSIONS;
}

export function fakeEmbedding(text: string): number[] {
  const vector = new Array<number>(FAKE_EMBEDDING_DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    if (IGNORED.has(word)) continue;
    const concept = CONCEPTS[word] ?? word;
    vector[bucket(concept)] = (vector[bucket(concept)] ?? 0) + 1;
  }
  return vector;
}

export interface FakeEmbeddings extends FakeServer {
  /** The requests to `/v1/embeddings`. */
  calls(): RecordedRequest[];
  /** Every text the server was asked to embed. */
  texts(): string[];
  /** Answers 500 (`'down'`), or 401 echoing the key as OpenAI does (`'echo-key'`), or a wrong count of vectors. */
  failing: false | 'down' | 'echo-key' | 'short';
}

export async function startFakeEmbeddings(): Promise<FakeEmbeddings> {
  const state: { failing: FakeEmbeddings['failing'] } = { failing: false };
  const server = await startFakeServer((request) => {
    if (request.path !== '/v1/embeddings' || request.method !== 'POST') return { status: 404, json: { error: { message: 'not found' } } };
    if (state.failing === 'down') return { status: 500, json: { error: { message: 'model not loaded' } } };
    if (state.failing === 'echo-key') {
      const key = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
      return { status: 401, json: { error: { message: `Incorrect API key provided: ${key}` } } };
    }
    const input = request.json?.input;
    if (!Array.isArray(input) || !input.every((text) => typeof text === 'string')) {
      return { status: 400, json: { error: { message: 'input must be an array of strings' } } };
    }
    return {
      status: 200,
      json: {
        object: 'list',
        model: request.json?.model,
        data: (state.failing === 'short' ? input.slice(1) : input).map((text: string, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text) })),
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      },
    };
  });
  const calls = () => server.requests.filter((request) => request.path === '/v1/embeddings');
  return {
    url: server.url,
    requests: server.requests,
    close: () => server.close(),
    calls,
    texts: () => calls().flatMap((request) => (Array.isArray(request.json?.input) ? (request.json.input as string[]) : [])),
    get failing() {
      return state.failing;
    },
    set failing(value: FakeEmbeddings['failing']) {
      state.failing = value;
    },
  };
}
