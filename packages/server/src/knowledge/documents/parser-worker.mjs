// A thread of the document parser's pool (document-parser.ts): parses the files it is sent, one at a time. Plain
// JavaScript, like the encoder's worker: a worker does not inherit the server's TypeScript loader, so it registers
// its own before importing the parser.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { readDocument } = await import('./read-document.ts');
const { DocumentError } = await import('./document-text.ts');
parentPort.on('message', async ({ id, bytes, kind }) => {
  try {
    const passages = await readDocument(new Uint8Array(bytes), kind);
    parentPort.postMessage({ id, passages });
  } catch (error) {
    if (error instanceof DocumentError) parentPort.postMessage({ id, error: error.message });
    else parentPort.postMessage({ id, crash: String(error?.message ?? error).slice(0, 300) });
  }
});
parentPort.postMessage({ ready: true });
