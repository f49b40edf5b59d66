// A thread of the document parser's pool (document-parser.ts): parses the files it is sent, one at a time. Plain
// JavaScript, like the encoder's worker. In the production build (packages/server/dist, where this file is copied
// beside the built parser) it imports the JavaScript; run from the sources (tests, `npm run dev`) a worker does not
// inherit the server's TypeScript loader, so it registers tsx's before importing the TypeScript.
import { existsSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

const built = existsSync(new URL('./read-document.js', import.meta.url));
if (!built) (await import('tsx/esm/api')).register();
const extension = built ? '.js' : '.ts';
const { readDocument } = await import(`./read-document${extension}`);
const { DocumentError } = await import(`./document-text${extension}`);
parentPort.on('message', async ({ id, bytes, kind }) => {
  try {
    // PDF.js is loaded on a worker's first PDF (tens of MB, hundreds under tsx): the parse's memory, which the parser
    // watches, is measured from once it is loaded.
    if (kind === 'pdf') {
      await import('pdfjs-dist/legacy/build/pdf.mjs');
      parentPort.postMessage({ id, loaded: true });
    }
    const passages = await readDocument(new Uint8Array(bytes), kind);
    parentPort.postMessage({ id, passages });
  } catch (error) {
    if (error instanceof DocumentError) parentPort.postMessage({ id, error: error.message, ...(error.limit ? { retire: true } : {}) });
    else parentPort.postMessage({ id, crash: String(error?.message ?? error).slice(0, 300) });
  }
});
parentPort.postMessage({ ready: true });
