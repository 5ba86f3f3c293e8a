import assert from 'node:assert/strict';
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { S3BlobStore } from '../../../plugins/blobs-s3/s3-store.ts';
import { S3Options } from '../../../plugins/blobs-s3/schemas.ts';
import { Value } from '@sinclair/typebox/value';
import { blobStoreSuite } from '../../core/blob-store-suite.ts';
import { s3rverCredentials, startS3Server, type S3Server } from '../../fixtures/s3-server.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

const optionsFor = (server: S3Server, extra: Partial<S3Options> = {}): S3Options =>
  Value.Default(S3Options, { endpoint: server.endpoint, bucket: server.bucket, ...s3rverCredentials(), ...extra }) as S3Options;

const clientFor = (server: S3Server) => new S3Client({ endpoint: server.endpoint, region: 'us-east-1', credentials: s3rverCredentials(), forcePathStyle: true });

blobStoreSuite('S3 (s3rver on loopback)', async () => {
  const server = await startS3Server();
  const store = new S3BlobStore(optionsFor(server));
  return {
    store,
    async dispose() {
      store.close();
      await server.close();
    },
  };
});

describe('S3 blob store', function () {
  storageIndependent();
  this.timeout(60_000);
  let server: S3Server;
  let client: S3Client;
  beforeEach(async () => {
    server = await startS3Server();
    client = clientFor(server);
  });
  afterEach(async () => {
    client.destroy();
    await server.close();
  });

  it('keeps objects under its prefix, with the content type it was given', async () => {
    const store = new S3BlobStore(optionsFor(server, { prefix: 'tenant-a/' }));
    const other = new S3BlobStore(optionsFor(server, { prefix: 'tenant-b/' }));
    try {
      await store.put('files/x', Buffer.from('png?'), { contentType: 'image/png' });
      await store.put('files/y', Readable.from([Buffer.from('streamed')]), { contentType: 'image/gif' });
      const listed = await client.send(new ListObjectsV2Command({ Bucket: server.bucket }));
      assert.deepEqual(listed.Contents?.map((o) => o.Key).sort(), ['tenant-a/files/x', 'tenant-a/files/y']);
      assert.equal((await client.send(new HeadObjectCommand({ Bucket: server.bucket, Key: 'tenant-a/files/x' }))).ContentType, 'image/png');
      assert.equal((await client.send(new HeadObjectCommand({ Bucket: server.bucket, Key: 'tenant-a/files/y' }))).ContentType, 'image/gif');
      assert.equal(await other.exists('files/x'), false);
    } finally {
      store.close();
      other.close();
    }
  });

  it('says why a bucket does not answer: missing, or refused credentials', async () => {
    const missing = new S3BlobStore(optionsFor(server, { bucket: 'no-such-bucket' }));
    const refused = new S3BlobStore(optionsFor(server, { accessKeyId: 'WRONG', secretAccessKey: 'WRONG' }));
    const ok = new S3BlobStore(optionsFor(server));
    try {
      assert.match((await missing.check())!, /bucket "no-such-bucket" at http:\/\/127\.0\.0\.1:\d+ does not answer: it does not exist/);
      assert.match((await refused.check())!, /does not answer: access is denied/);
      assert.equal(await ok.check(), null);
    } finally {
      missing.close();
      refused.close();
      ok.close();
    }
  });
});
