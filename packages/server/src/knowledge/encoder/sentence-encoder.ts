// The built-in sentence encoder (English only): Universal Sentence Encoder lite in a worker thread, so a
// 15–50 ms embedding never blocks the event loop. The thread and the model (about +150 MB resident) are started
// on the first use, not at start, and ended after `idleMs` without a request (the next one starts them again, in
// about a second); `KB_ENCODER=off` (config.ts) leaves it out entirely.
import { Worker } from 'node:worker_threads';

export interface SentenceEncoder {
  /** What computes the vectors, stored with them (`vectors_model`). */
  readonly model: string;
  /** One vector per text. */
  embed(texts: readonly string[]): Promise<number[][]>;
  /** Whether the thread and its model are loaded now (started by a request, ended after `idleMs` without one). */
  loaded(): boolean;
  close(): Promise<void>;
}

export const BUILT_IN_MODEL = 'use-lite';

type Reply = { id: number; vectors: number[][] } | { id: number; error: string };

/** How long the encoder's thread and model are kept without a request before their memory is given back. */
export const ENCODER_IDLE_MS = 10 * 60_000;

export function createSentenceEncoder(options: { idleMs?: number } = {}): SentenceEncoder {
  const idleMs = options.idleMs ?? ENCODER_IDLE_MS;
  let worker: Worker | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let nextId = 0;
  const waiting = new Map<number, { resolve: (vectors: number[][]) => void; reject: (error: Error) => void }>();

  function start(): Worker {
    const thread = new Worker(new URL('./encoder-worker.mjs', import.meta.url));
    thread.on('message', (reply: Reply) => {
      const call = waiting.get(reply.id);
      waiting.delete(reply.id);
      if (!call) return;
      if ('error' in reply) call.reject(new Error(`sentence encoder: ${reply.error}`));
      else call.resolve(reply.vectors);
    });
    const failAll = (error: Error) => {
      // A thread ended for being idle may exit after the next request started another: that one's calls are not its.
      if (worker !== undefined && worker !== thread) return;
      for (const call of waiting.values()) call.reject(error);
      waiting.clear();
      worker = undefined;
    };
    thread.on('error', failAll);
    thread.on('exit', (code) => failAll(new Error(`sentence encoder: thread exited (${code})`)));
    // Idle, the thread does not keep the process alive.
    thread.unref();
    return thread;
  }

  return {
    model: BUILT_IN_MODEL,
    embed(texts) {
      if (texts.length === 0) return Promise.resolve([]);
      clearTimeout(idleTimer);
      worker ??= start();
      const id = nextId++;
      const thread = worker;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        thread.ref();
        thread.postMessage({ id, texts: [...texts] });
      }).finally(() => {
        if (waiting.size > 0) return;
        thread.unref();
        clearTimeout(idleTimer);
        idleTimer = setTimeout(() => {
          if (worker !== thread || waiting.size > 0) return;
          worker = undefined;
          void thread.terminate();
        }, idleMs);
        idleTimer.unref();
      }) as Promise<number[][]>;
    },
    loaded: () => worker !== undefined,
    async close() {
      clearTimeout(idleTimer);
      const thread = worker;
      worker = undefined;
      if (thread) await thread.terminate();
    },
  };
}

/**
 * One text's vector, the most recent `size` texts remembered (by their normalized form): customers ask the same
 * few questions over and over, and the encoder's thread embeds one text at a time (tens of questions a second).
 */
export function cachedTextEmbedding(encoder: Pick<SentenceEncoder, 'embed'>, size = 2000): (text: string) => Promise<number[]> {
  return primedTextEmbedding(encoder, size).embed;
}

/**
 * `cachedTextEmbedding`, and `prime`: the texts not remembered yet embedded in one call of the encoder (a batch costs
 * the thread far less than its texts one by one), remembered for the questions that follow (a replay's batch).
 */
export function primedTextEmbedding(encoder: Pick<SentenceEncoder, 'embed'>, size = 2000) {
  const cache = new Map<string, Promise<number[]>>();
  const cached = cachedEmbedding<null>((_, text) => encoder.embed([text]).then((vectors) => vectors[0] ?? []), () => '', size, cache);
  return {
    embed: (text: string) => cached(null, text),
    async prime(texts: readonly string[]): Promise<void> {
      const keys = new Map<string, string>();
      for (const text of texts.slice(0, Math.floor(size / 2))) {
        const key = embeddingKey('', text);
        if (!cache.has(key)) keys.set(key, text);
      }
      if (keys.size === 0) return;
      const batch = encoder.embed([...keys.values()]);
      [...keys.keys()].forEach((key, i) => {
        const vector = batch.then((vectors) => vectors[i] ?? []);
        vector.catch(() => cache.delete(key));
        cache.set(key, vector);
      });
      while (cache.size > size) cache.delete(cache.keys().next().value ?? '');
      await batch.catch(() => undefined);
    },
  };
}

function embeddingKey(scope: string, text: string): string {
  return `${scope}\n${text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()}`;
}

/**
 * `embed` with the most recent `size` (scope, text) pairs remembered, texts by their normalized form; a failure is
 * not remembered (the next question tries again). `scope` names what embeds (a provider's model): vectors of
 * different models never mix.
 */
export function cachedEmbedding<A>(
  embed: (arg: A, text: string) => Promise<number[]>,
  scope: (arg: A) => string,
  size = 2000,
  cache = new Map<string, Promise<number[]>>(),
): (arg: A, text: string) => Promise<number[]> {
  return (arg, text) => {
    const key = embeddingKey(scope(arg), text);
    let vector = cache.get(key);
    if (vector) {
      // Most recently used last: the first key is the one to drop.
      cache.delete(key);
    } else {
      vector = embed(arg, text);
      vector.catch(() => cache.delete(key));
    }
    cache.set(key, vector);
    if (cache.size > size) cache.delete(cache.keys().next().value ?? '');
    return vector;
  };
}
