// Files in S3-compatible object storage (S3_BUCKET and the other S3_* variables; docs/operations.md, *Files in
// object storage*): the same FileStorage as the local folder, so processes on several machines share uploads,
// attachments and documents without a network file system. Each file is one object `files/<key>`: its bytes, its
// content type as the object's Content-Type and its name as the metadata `name` (percent-encoded: metadata travels
// in HTTP headers). A PutObject is atomic, so a key is only ever served once its object is complete. File URLs do
// not change: they are still served by Parley's /files/ route (files/files-routes.ts), never by the bucket.
import { createReadStream } from 'node:fs';
import { mkdir, stat, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import type * as S3Sdk from '@aws-sdk/client-s3';
import type { S3Settings } from '../config.ts';
import { isFileKey, newFileKey, type FileStorage, type StoredFile } from './file-storage.ts';

const PREFIX = 'files/';
/** Attempts of one operation: a lost connection or a 5xx answer is tried again, with a fresh body each time. */
const ATTEMPTS = 3;
const RETRY_DELAYS_MS = [200, 1000];

interface S3Failure {
  name?: string;
  $metadata?: { httpStatusCode?: number };
}

function statusOf(error: unknown): number | undefined {
  return (error as S3Failure | undefined)?.$metadata?.httpStatusCode;
}

function isMissing(error: unknown): boolean {
  return statusOf(error) === 404 || (error as S3Failure | undefined)?.name === 'NoSuchKey';
}

/** An answer of the server that is not a 5xx (or a 429) would be the same again: only the others are retried. */
function isRetryable(error: unknown): boolean {
  const status = statusOf(error);
  return status === undefined || status >= 500 || status === 429;
}

function decodeName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

type Sdk = typeof S3Sdk;
type S3Client = S3Sdk.S3Client;
let sdkLoading: Promise<Sdk> | undefined;
/** The AWS SDK is loaded when first needed: a server with its files in DATA_DIR never pays its start and memory. */
const loadSdk = (): Promise<Sdk> => (sdkLoading ??= import('@aws-sdk/client-s3'));

/** The SDK's client: checksums only where S3 requires them, which every S3-compatible server understands. */
export async function createS3Client(settings: S3Settings): Promise<S3Client> {
  const { S3Client } = await loadSdk();
  return new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    ...(settings.accessKeyId && settings.secretAccessKey
      ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
      : {}),
    // Retried here instead (see ATTEMPTS): the SDK cannot send a file's stream again once it was read.
    maxAttempts: 1,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
  });
}

/**
 * Files in `settings.bucket`. Uploads are still received into `incomingDir` on this machine (streamed, never held
 * in memory) and streamed from there to the bucket by `putFile`, which then deletes the local copy.
 */
export function createS3FileStorage(settings: S3Settings, incomingDir: string): FileStorage {
  const { bucket } = settings;
  const objectKey = (key: string) => `${PREFIX}${key}`;
  let connecting: Promise<{ sdk: Sdk; client: S3Client }> | undefined;
  const connect = () => (connecting ??= Promise.all([loadSdk(), createS3Client(settings)]).then(([sdk, client]) => ({ sdk, client })));

  async function withRetries<T>(operation: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await operation();
      } catch (error) {
        if (attempt >= ATTEMPTS || !isRetryable(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt - 1]));
      }
    }
  }

  async function putObject(key: string, size: number, meta: { contentType: string; name: string }, body: () => Buffer | Readable) {
    const { sdk, client } = await connect();
    await withRetries(() =>
      client.send(
        new sdk.PutObjectCommand({
          Bucket: bucket,
          Key: objectKey(key),
          Body: body(),
          ContentLength: size,
          ContentType: meta.contentType,
          Metadata: { name: encodeURIComponent(meta.name) },
        }),
      ),
    );
  }

  return {
    async put(bytes, meta) {
      const key = newFileKey();
      await putObject(key, bytes.length, meta, () => bytes);
      return { key, size: bytes.length, contentType: meta.contentType, name: meta.name } satisfies StoredFile;
    },

    async incomingPath() {
      await mkdir(incomingDir, { recursive: true });
      return path.join(incomingDir, `${randomBytes(12).toString('hex')}.upload`);
    },

    async putFile(source, meta) {
      const key = newFileKey();
      const { size } = await stat(source);
      await putObject(key, size, meta, () => createReadStream(source));
      await unlink(source).catch(() => undefined); // the upload route deletes what is left after its answer anyway
      return { key, size, contentType: meta.contentType, name: meta.name };
    },

    async remove(key) {
      if (!isFileKey(key)) return;
      const { sdk, client } = await connect();
      // DeleteObject of an unknown key succeeds: nothing to tell apart.
      await withRetries(() => client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) })));
    },

    async open(key) {
      if (!isFileKey(key)) return undefined; // before any request: no odd object names
      const { sdk, client } = await connect();
      let answer;
      try {
        answer = await withRetries(() => client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: objectKey(key) })));
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
      const { Body: body, ContentType: contentType, ContentLength: size } = answer;
      const name = decodeName(answer.Metadata?.name);
      if (!(body instanceof Readable)) throw new Error(`S3 GetObject of ${objectKey(key)} answered without a readable body`);
      if (name === undefined || contentType === undefined || size === undefined) {
        // Not an object this storage wrote (no name, type or length): as good as missing.
        body.destroy();
        return undefined;
      }
      return { stream: body, contentType, name, size };
    },
  };
}
