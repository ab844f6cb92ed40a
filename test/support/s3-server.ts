// A local S3-compatible server (s3rver: S3's REST API over HTTP, objects on disk in a temporary
// directory) for the archive's tests, with one bucket made at start, and a client of it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
// @ts-expect-error s3rver ships no type declarations
import S3rver from 's3rver';
import { afterAll, beforeAll } from 'vitest';
import { whileRunning } from './harness.ts';

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** engage's settings for it (config LOG_ARCHIVE_S3_*) */
  config: Record<string, string>;
  client: S3Client;
  get(key: string): Promise<Buffer>;
  put(key: string, body: Buffer): Promise<void>;
}

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** An S3-compatible server for the suite (started before the hooks registered after this call). */
export function s3ServerForSuite(bucket = 'engage-archive'): S3Server {
  let running: S3Server | undefined;
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'engage-s3-'));
    const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
    const { port } = (await server.run()) as { port: number };
    const endpoint = `http://127.0.0.1:${port}`;
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
    running = {
      endpoint,
      bucket,
      config: { LOG_ARCHIVE_S3_ENDPOINT: endpoint, LOG_ARCHIVE_S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId, LOG_ARCHIVE_S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey },
      client,
      get: async (key) => Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToByteArray()),
      put: async (key, body) => void (await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }))),
    };
    stop = async () => {
      client.destroy();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    };
  });
  afterAll(async () => {
    await stop?.();
  });
  return whileRunning(() => running, 'the S3-compatible server');
}
