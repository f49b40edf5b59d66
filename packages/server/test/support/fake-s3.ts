// A local S3-compatible server for tests (s3rver: a real HTTP server on 127.0.0.1 implementing the S3 API, objects
// kept in a temporary folder), with one bucket and the S3 settings that reach it.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { S3Settings } from '../../src/config.ts';
import { createS3Client } from '../../src/files/s3-file-storage.ts';

export interface FakeS3 {
  url: string;
  /** What a Parley process is given (S3_BUCKET, S3_ENDPOINT, …). */
  settings: S3Settings;
  /** A client of the bucket, for what a test puts or checks itself. */
  client: S3Client;
  /** The bucket's object keys, sorted. */
  objectKeys(): Promise<string[]>;
  close(): Promise<void>;
}

/** s3rver's fixed credentials: a request with another access key id is refused (403 InvalidAccessKeyId). */
export const S3_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export async function startFakeS3(bucket = 'parley-files'): Promise<FakeS3> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'parley-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = await server.run();
  const url = `http://127.0.0.1:${port}`;
  const settings: S3Settings = { bucket, endpoint: url, region: 'us-east-1', ...S3_KEYS, forcePathStyle: true };
  const client = await createS3Client(settings);
  return {
    url,
    settings,
    client,
    async objectKeys() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
        keys.push(...(page.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : [])));
        token = page.NextContinuationToken;
      } while (token);
      return keys.sort();
    },
    async close() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
