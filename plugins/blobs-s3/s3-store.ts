import { Readable, Transform, type TransformCallback } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { assertBlobKey, type BlobInfo, type BlobRange, type BlobStore, type PutOptions } from '../../core/blobs.ts';
import type { S3Options } from './schemas.ts';

/** S3's smallest part (but the last): a stream is sent in parts of this size, at most `QUEUE` of them held at once. */
export const PART_BYTES = 5 * 1024 * 1024;
const QUEUE = 2;

/** Counts what passes through: the size of a stream whose length nobody knew. */
class ByteCounter extends Transform {
  bytes = 0;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    done(null, chunk);
  }
}

/**
 * Bytes `skip` to `skip + take` of what passes through. A server that ignores a Range (or part of it: s3rver answers
 * `bytes=0-0` with the whole object) still yields exactly the bytes asked for.
 */
class ByteWindow extends Transform {
  constructor(
    private toSkip: number,
    private toTake: number,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const from = Math.min(this.toSkip, chunk.length);
    this.toSkip -= from;
    const part = chunk.subarray(from, from + this.toTake);
    this.toTake -= part.length;
    done(null, part.length > 0 ? part : undefined);
  }
}

/** Where the bytes of an answer start: the `Content-Range` start, or 0 when the server sent the whole object. */
const rangeStart = (contentRange: string | undefined) => Number(/^bytes (\d+)-/.exec(contentRange ?? '')?.[1] ?? 0);

const isMissing = (err: unknown) => err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404;

/** Blobs as objects of one bucket, under `prefix`: the same keys and the same answers as the local disk store. */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;

  constructor(private readonly options: S3Options) {
    const { accessKeyId, secretAccessKey } = options;
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
      requestChecksumCalculation: options.checksums,
      responseChecksumValidation: options.checksums,
    });
  }

  private keyOf(key: string): { Bucket: string; Key: string } {
    assertBlobKey(key);
    return { Bucket: this.options.bucket, Key: `${this.options.prefix}${key}` };
  }

  /** Whether the bucket answers with these credentials: a message for the operator when it does not. */
  async check(): Promise<string | null> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
      return null;
    } catch (err) {
      const status = err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;
      const why = status === 404 ? 'it does not exist' : status === 403 ? 'access is denied with these credentials' : (err as Error).message || (err as Error).name;
      return `bucket "${this.options.bucket}" at ${this.options.endpoint ?? `AWS S3 (${this.options.region})`} does not answer: ${why}`;
    }
  }

  /**
   * A buffer in one request; a stream of unknown length through a multipart upload, so that only a few parts are
   * held at once. A stream that fails aborts the upload: nothing is stored under the key, and the promise rejects.
   */
  async put(key: string, data: Buffer | Readable, opts: PutOptions = {}): Promise<BlobInfo> {
    const target = { ...this.keyOf(key), ...(opts.contentType ? { ContentType: opts.contentType } : {}) };
    if (Buffer.isBuffer(data)) {
      await this.client.send(new PutObjectCommand({ ...target, Body: data, ContentLength: data.length }));
      return { key, size: data.length };
    }
    const counter = new ByteCounter();
    let failed: Error | undefined;
    data.once('error', (err) => counter.destroy((failed = err)));
    const upload = new Upload({ client: this.client, params: { ...target, Body: data.pipe(counter) }, partSize: PART_BYTES, queueSize: QUEUE, leavePartsOnError: false });
    try {
      await upload.done();
    } catch (err) {
      // lib-storage aborts the multipart upload; when the server refuses the abort too, that error would hide the cause.
      throw failed ?? err;
    }
    return { key, size: counter.bytes };
  }

  async get(key: string, range?: BlobRange): Promise<Readable | null> {
    try {
      const res = await this.client.send(new GetObjectCommand({ ...this.keyOf(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
      // In Node the body is an http.IncomingMessage.
      const body = res.Body as Readable;
      if (!range) return body;
      const window = new ByteWindow(range.start - rangeStart(res.ContentRange), range.end - range.start + 1);
      body.once('error', (err) => window.destroy(err));
      return body.pipe(window);
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async read(key: string): Promise<Buffer | null> {
    const body = await this.get(key);
    if (!body) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      const res = await this.client.send(new HeadObjectCommand(this.keyOf(key)));
      return { size: res.ContentLength ?? 0 };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  /** S3 answers a delete of a missing key like any other. */
  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand(this.keyOf(key)));
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  /** Closes the client's sockets. */
  close(): void {
    this.client.destroy();
  }
}
