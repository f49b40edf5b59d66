// A PDF's size once inflated, checked before PDF.js reads it: PDF.js inflates a stream whole into one growing
// buffer (outside the heap a worker's resourceLimits bound), so a 1 MB file holding a FlateDecode stream of 1 GB
// took the process past 3 GB. Each stream whose first filter is FlateDecode is inflated here through zlib, every
// byte counted and dropped, stopping at the first byte past its limit (images excepted: PDF.js does not decode them
// to read the text); the objects are counted too. Streams this
// cannot read (other filters first, an encrypted file) are left to the parser's memory watchdog.
import { createInflate } from 'node:zlib';
import { DocumentError } from './document-error.ts';

/** One stream may inflate to at most this (a page of dense vector drawing is a few MB). */
export const MAX_PDF_STREAM_BYTES = 32 * 1024 * 1024;
/** All the streams of a PDF together. */
export const MAX_PDF_INFLATED_BYTES = 256 * 1024 * 1024;
/** Objects, in the file and in its object streams. */
export const MAX_PDF_OBJECTS = 500_000;
/** Pages (checked once PDF.js has opened the file). */
export const MAX_PDF_PAGES = 2_000;

const MB = 1024 * 1024;

/** Where a stream's data starts after its `stream` keyword, and its dictionary (from the object's start). */
function* streams(text: string): Generator<{ dictionary: string; start: number }> {
  const keyword = /stream(\r\n|\n|\r)/g;
  for (let match = keyword.exec(text); match; match = keyword.exec(text)) {
    if (text[match.index - 1] === 'd') continue; // endstream
    const objectStart = text.lastIndexOf('obj', match.index);
    if (objectStart < 0) continue;
    yield { dictionary: text.slice(objectStart, match.index), start: match.index + match[0].length };
  }
}

/** The bytes of a stream: its direct /Length when given and plausible, else up to `endstream`. */
function streamData(bytes: Uint8Array, text: string, dictionary: string, start: number): Uint8Array {
  const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dictionary)?.[1];
  if (length !== undefined && start + Number(length) <= bytes.length) return bytes.subarray(start, start + Number(length));
  const end = text.indexOf('endstream', start);
  return bytes.subarray(start, end < 0 ? bytes.length : end);
}

/** Inflates `data`, counting the bytes; the count, stopped at the first byte past `limit` (a damaged end ends it). */
function inflatedSize(data: Uint8Array, limit: number): Promise<number> {
  return new Promise((resolve) => {
    const inflater = createInflate({ chunkSize: 64 * 1024 });
    let size = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      inflater.destroy();
      resolve(size);
    };
    inflater.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish();
    });
    // PDF.js reads a damaged stream up to where it breaks: so is it counted.
    inflater.once('error', finish);
    inflater.once('end', finish);
    inflater.end(data);
  });
}

/** DocumentError when the PDF's streams inflate past their limits or it holds too many objects. */
export async function checkPdfLimits(bytes: Uint8Array): Promise<void> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let objects = text.match(/\d+\s+\d+\s+obj\b/g)?.length ?? 0;
  for (const match of text.matchAll(/\/Type\s*\/ObjStm\b[^>]*?\/N\s+(\d+)|\/N\s+(\d+)[^>]*?\/Type\s*\/ObjStm\b/g)) objects += Number(match[1] ?? match[2]);
  if (objects > MAX_PDF_OBJECTS) throw new DocumentError(`The PDF has more than ${MAX_PDF_OBJECTS.toLocaleString('en')} objects, the limit; it may be damaged or too complex.`, { limit: true });
  // Encrypted streams cannot be inflated before PDF.js decrypts them.
  if (/\/Encrypt\b/.test(text)) return;
  let total = 0;
  for (const { dictionary, start } of streams(text)) {
    if (!/\/Filter\s*(\[\s*)?\/(FlateDecode|Fl)\b/.test(dictionary)) continue;
    // Images are never decoded to read the text (a catalogue's photos may inflate to hundreds of MB).
    if (/\/Subtype\s*\/Image\b/.test(dictionary)) continue;
    const size = await inflatedSize(streamData(bytes, text, dictionary, start), Math.min(MAX_PDF_STREAM_BYTES, MAX_PDF_INFLATED_BYTES - total));
    if (size > MAX_PDF_STREAM_BYTES) {
      throw new DocumentError(`The PDF has a stream that inflates to more than ${MAX_PDF_STREAM_BYTES / MB} MB, the limit; it may be a decompression bomb or damaged.`, { limit: true });
    }
    total += size;
    if (total > MAX_PDF_INFLATED_BYTES) {
      throw new DocumentError(`The PDF's streams inflate to more than ${MAX_PDF_INFLATED_BYTES / MB} MB together, the limit; it may be a decompression bomb or damaged.`, { limit: true });
    }
  }
}
