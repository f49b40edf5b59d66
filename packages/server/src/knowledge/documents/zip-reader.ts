// The entries of a ZIP archive (a DOCX is one), read from its central directory, and their contents streamed
// through zlib with every inflated byte counted: the sizes an archive declares can lie, so a part stops at the first
// byte past its budget, before it is ever held whole (a zip bomb inflates 1 MB to 1 GB).
import { createInflateRaw } from 'node:zlib';
import { DocumentError } from './document-error.ts';

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated; no other method is read. */
  method: number;
  compressedSize: number;
  /** Where its data starts in the archive. */
  dataStart: number;
}

/** The most entries an archive may list (a long Word document has a few dozen). */
export const MAX_ZIP_ENTRIES = 10_000;

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const CHUNK_BYTES = 64 * 1024;

function damaged(what: string): DocumentError {
  return new DocumentError(`The Word document is damaged: ${what}.`);
}

/** The entries listed by the archive's central directory; DocumentError when it cannot be read. */
export function zipEntries(bytes: Uint8Array): Map<string, ZipEntry> {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let at = view.length - 22; at >= Math.max(0, view.length - 22 - 0xffff); at--) {
    if (view.readUInt32LE(at) === END_OF_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw damaged('its list of parts (the ZIP directory) is missing');
  const count = view.readUInt16LE(end + 10);
  const directoryOffset = view.readUInt32LE(end + 16);
  if (count === 0xffff || directoryOffset === 0xffffffff) throw damaged('it is a ZIP64 archive, which Word does not write');
  if (count > MAX_ZIP_ENTRIES) throw new DocumentError(`The Word document has more than ${MAX_ZIP_ENTRIES.toLocaleString('en')} parts, the limit.`, { limit: true });
  const entries = new Map<string, ZipEntry>();
  let at = directoryOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > view.length || view.readUInt32LE(at) !== DIRECTORY_ENTRY) throw damaged('its list of parts is cut short');
    const flags = view.readUInt16LE(at + 8);
    const method = view.readUInt16LE(at + 10);
    const compressedSize = view.readUInt32LE(at + 20);
    const nameLength = view.readUInt16LE(at + 28);
    const skip = view.readUInt16LE(at + 30) + view.readUInt16LE(at + 32);
    const local = view.readUInt32LE(at + 42);
    const name = view.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    at += 46 + nameLength + skip;
    if (flags & 1) throw new DocumentError('The Word document is encrypted (it needs a password to open); upload a copy saved without a password.');
    if (local + 30 > view.length || view.readUInt32LE(local) !== LOCAL_HEADER) throw damaged(`its part ${name} is missing`);
    const dataStart = local + 30 + view.readUInt16LE(local + 26) + view.readUInt16LE(local + 28);
    if (dataStart + compressedSize > view.length) throw damaged(`its part ${name} is cut short`);
    entries.set(name, { name, method, compressedSize, dataStart });
  }
  return entries;
}

/**
 * What the parts read from one archive may inflate to, together (`maxBytes`) and each against its compressed size
 * (`maxRatio`, for a part past `ratioFloorBytes`: a small part of repeated markup may compress very well).
 */
export interface InflateBudget {
  maxBytes: number;
  maxRatio: number;
  ratioFloorBytes: number;
  /** Inflated so far, all parts together. */
  used: number;
}

/**
 * Streams one entry's inflated bytes to `onChunk` (64 kB at a time), counting them against `budget`: the first
 * byte past it ends the read with a DocumentError naming the limit. `onChunk` may throw to stop the read.
 */
export function readEntry(bytes: Uint8Array, entry: ZipEntry, budget: InflateBudget, onChunk: (chunk: Buffer) => void): Promise<void> {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset + entry.dataStart, entry.compressedSize);
  let inflated = 0;
  /** The error that ends the read, if the chunk passes a limit or `onChunk` throws. */
  const take = (chunk: Buffer): Error | undefined => {
    inflated += chunk.length;
    budget.used += chunk.length;
    if (budget.used > budget.maxBytes) {
      return new DocumentError(
        `The Word document inflates to more than ${Math.round(budget.maxBytes / (1024 * 1024))} MB, the limit; it may be a ZIP bomb or damaged.`,
        { limit: true },
      );
    }
    if (inflated > budget.ratioFloorBytes && inflated > budget.maxRatio * Math.max(1, entry.compressedSize)) {
      return new DocumentError(
        `The Word document's part ${entry.name} inflates more than ${budget.maxRatio} times its size, the limit; it may be a ZIP bomb or damaged.`,
        { limit: true },
      );
    }
    try {
      onChunk(chunk);
      return undefined;
    } catch (error) {
      return error as Error;
    }
  };
  if (entry.method === 0) {
    return (async () => {
      for (let at = 0; at < data.length; at += CHUNK_BYTES) {
        const failure = take(data.subarray(at, at + CHUNK_BYTES));
        if (failure) throw failure;
      }
    })();
  }
  if (entry.method !== 8) return Promise.reject(damaged(`its part ${entry.name} is compressed with a method Word does not use (${entry.method})`));
  return new Promise((resolve, reject) => {
    const inflater = createInflateRaw({ chunkSize: CHUNK_BYTES });
    let failed = false;
    inflater.on('data', (chunk: Buffer) => {
      if (failed) return;
      const failure = take(chunk);
      if (failure) {
        failed = true;
        inflater.destroy();
        reject(failure);
      }
    });
    inflater.once('error', (error) => {
      if (failed) return;
      failed = true;
      reject(damaged(`its part ${entry.name} cannot be inflated (${error.message})`));
    });
    inflater.once('end', () => resolve());
    inflater.end(data);
  });
}
