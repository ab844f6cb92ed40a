// Where the log's archive lies (README "Archiving old partitions"): a local directory, or a prefix
// of an S3-compatible bucket (`s3://bucket/prefix`: AWS S3, MinIO, Ceph, R2…). A file's location,
// as es_partitions keeps it, is its absolute path or its `s3://bucket/key`; any process of the
// service reads it back from that location with the same settings.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';

/** How the archive reaches an S3-compatible bucket (config LOG_ARCHIVE_S3_*); credentials left out: the AWS SDK's own chain (AWS_ACCESS_KEY_ID, profiles, instance roles). */
export interface ArchiveS3Settings {
  /** another service than AWS S3 (MinIO, Ceph…): its URL */
  endpoint?: string;
  region?: string;
  /** bucket in the path rather than the host name (MinIO and most S3-compatible servers) */
  pathStyle?: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
}

/** A file being written: its bytes go to `stream`; `finish` makes it the place's once they all went, `abort` leaves nothing. */
export interface ArchiveSink {
  stream: Writable;
  finish(bytes: number): Promise<void>;
  abort(): Promise<void>;
}

/** A directory or a bucket's prefix holding an archive: its files by name. */
export interface ArchivePlace {
  /** the place as the operator names it: an absolute directory or s3://bucket/prefix */
  readonly name: string;
  /** the location of its file `file` (es_partitions' archive_file) */
  locationOf(file: string): string;
  create(file: string): Promise<ArchiveSink>;
  writeText(file: string, text: string): Promise<void>;
  /** undefined where there is no such file */
  readText(file: string): Promise<string | undefined>;
  /** its size in bytes, undefined where there is no such file */
  size(file: string): Promise<number | undefined>;
  remove(file: string): Promise<void>;
}

const S3_URL = /^s3:\/\/([^/]+)\/?(.*)$/;

/** S3's answer for a key that is not there (HEAD answers 404 with no body to name it by). */
const notFound = (err: unknown) => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;

/** The archive's places and files, with one S3 client (made on first use) for every bucket. */
export class ArchiveStorage {
  private client?: Promise<S3Client>;

  constructor(private readonly s3: ArchiveS3Settings = {}) {}

  /** `target`: a directory (made where missing) or s3://bucket/prefix */
  place(target: string): ArchivePlace {
    const s3 = S3_URL.exec(target);
    return s3 ? this.bucketPlace(s3[1], s3[2].replace(/\/+$/, '')) : directoryPlace(path.resolve(target));
  }

  /** A file's bytes, by its location. */
  async open(location: string): Promise<Readable> {
    const s3 = S3_URL.exec(location);
    if (!s3) return createReadStream(location);
    const { GetObjectCommand } = await import('@aws-sdk/client-s3');
    const res = await (await this.s3Client()).send(new GetObjectCommand({ Bucket: s3[1], Key: s3[2] }));
    return res.Body as Readable;
  }

  close(): void {
    void this.client?.then((c) => c.destroy(), () => undefined);
    this.client = undefined;
  }

  private s3Client(): Promise<S3Client> {
    this.client ??= import('@aws-sdk/client-s3').then(({ S3Client }) => {
      const { endpoint, region, pathStyle, accessKeyId, secretAccessKey } = this.s3;
      return new S3Client({
        endpoint,
        region: region ?? 'us-east-1',
        forcePathStyle: pathStyle ?? endpoint !== undefined,
        credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
        // the archive checks its files itself (SHA-256 in the manifest, `engage log verify`); the SDK's
        // own checksums by default send aws-chunked bodies that S3-compatible servers do not all take
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
    });
    return this.client;
  }

  private bucketPlace(bucket: string, prefix: string): ArchivePlace {
    const key = (file: string) => (prefix ? `${prefix}/${file}` : file);
    const client = () => this.s3Client();
    const sdk = () => import('@aws-sdk/client-s3');
    const size = async (file: string) => {
      const { HeadObjectCommand } = await sdk();
      try {
        return (await (await client()).send(new HeadObjectCommand({ Bucket: bucket, Key: key(file) }))).ContentLength;
      } catch (err) {
        if (notFound(err)) return undefined;
        throw err;
      }
    };
    return {
      name: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
      locationOf: (file) => `s3://${bucket}/${key(file)}`,
      create: async (file) => {
        // a multipart upload fed as the bytes come: nothing is staged on local disk
        const body = new PassThrough();
        const uploaded = (async () => {
          const { Upload } = await import('@aws-sdk/lib-storage');
          const upload = new Upload({ client: await client(), params: { Bucket: bucket, Key: key(file), Body: body, ContentType: 'application/gzip' } });
          return upload.done();
        })();
        // an upload that fails stops the writer (else the bytes back up and it waits for ever)
        uploaded.catch((err: Error) => body.destroy(err));
        return {
          stream: body,
          finish: async (bytes) => {
            await uploaded;
            const stored = await size(file);
            if (stored !== bytes) throw new Error(`${key(file)}: ${stored ?? 'no'} bytes in the bucket, ${bytes} written`);
          },
          abort: async () => {
            body.destroy();
            await uploaded.catch(() => undefined);
            await removeObject(file);
          },
        };
      },
      writeText: async (file, text) => {
        const { PutObjectCommand } = await sdk();
        await (await client()).send(new PutObjectCommand({ Bucket: bucket, Key: key(file), Body: text, ContentType: 'application/json' }));
      },
      readText: async (file) => {
        try {
          const body = await this.open(`s3://${bucket}/${key(file)}`);
          const chunks: Buffer[] = [];
          for await (const c of body) chunks.push(c as Buffer);
          return Buffer.concat(chunks).toString('utf8');
        } catch (err) {
          if (notFound(err)) return undefined;
          throw err;
        }
      },
      size,
      remove: (file) => removeObject(file),
    };
    async function removeObject(file: string) {
      const { DeleteObjectCommand } = await sdk();
      await (await client()).send(new DeleteObjectCommand({ Bucket: bucket, Key: key(file) }));
    }
  }
}

function directoryPlace(dir: string): ArchivePlace {
  const at = (file: string) => path.join(dir, file);
  /** a file written whole or not at all: through a temporary name, synced, then renamed */
  const landing = async (file: string) => {
    const handle = await open(`${at(file)}.partial`, 'r');
    await handle.sync();
    await handle.close();
    await rename(`${at(file)}.partial`, at(file));
  };
  return {
    name: dir,
    locationOf: at,
    create: async (file) => {
      await mkdir(dir, { recursive: true });
      return {
        stream: createWriteStream(`${at(file)}.partial`),
        finish: async (bytes) => {
          const size = (await stat(`${at(file)}.partial`)).size;
          if (size !== bytes) throw new Error(`${at(file)}: ${size} bytes on disk, ${bytes} written`);
          await landing(file);
        },
        abort: async () => {
          await rm(`${at(file)}.partial`, { force: true });
          await rm(at(file), { force: true });
        },
      };
    },
    writeText: async (file, text) => {
      await mkdir(dir, { recursive: true });
      await writeFile(`${at(file)}.partial`, text);
      await landing(file);
    },
    readText: async (file) => {
      try {
        return await readFile(at(file), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    size: async (file) => (await stat(at(file)).catch(() => undefined))?.size,
    remove: (file) => rm(at(file), { force: true }),
  };
}
