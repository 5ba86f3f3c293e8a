import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { LocalDiskBlobStore } from '../../../core/blobs.ts';
import { loadConfig } from '../../../core/config.ts';
import { StartupError } from '../../../core/errors.ts';
import { definePlugin } from '../../../core/plugin.ts';
import { createWorkspace, signUp, startTestKernel, type TestKernel } from '../../../core/testing.ts';
import blobsS3 from '../../../plugins/blobs-s3/index.ts';
import files from '../../../plugins/files/index.ts';
import { s3rverCredentials, startS3Server, type S3Server } from '../../fixtures/s3-server.ts';
import { eventually, images } from '../files/setup.ts';
import { attachmentsWorld, binary, jpeg } from '../attachments/setup.ts';

const s3Config = (server: S3Server, options: Record<string, unknown> = {}) => ({
  plugins: { 'blobs-s3': { enabled: true, options: { endpoint: server.endpoint, bucket: server.bucket, ...s3rverCredentials(), prefix: 'tessera/', ...options } } },
});

async function startFailure(start: Promise<TestKernel>): Promise<StartupError> {
  const err = await start.then(
    (t) => t.stop().then(() => assert.fail('the kernel started')),
    (e: unknown) => e,
  );
  assert.ok(err instanceof StartupError, String(err));
  return err;
}

describe('blobs-s3 in a kernel', function () {
  this.timeout(60_000);
  let server: S3Server;
  let client: S3Client;
  beforeEach(async () => {
    server = await startS3Server();
    client = new S3Client({ endpoint: server.endpoint, region: 'us-east-1', credentials: s3rverCredentials(), forcePathStyle: true });
  });
  afterEach(async () => {
    client.destroy();
    await server.close();
  });

  const objects = async () => ((await client.send(new ListObjectsV2Command({ Bucket: server.bucket }))).Contents ?? []).map((o) => o.Key!);

  it('keeps uploaded files in the bucket, serves them through /content and signed URLs, and deletes them on revoke', async () => {
    const t = await startTestKernel({ plugins: [files, blobsS3], config: s3Config(server) });
    try {
      assert.equal(t.kernel.blobs.provider, 'blobs-s3');
      const admin = await signUp(t);
      const ws = (await createWorkspace(t, admin)).id;
      const png = await images.png();
      const file = (await t.request.post(`/api/v1/workspaces/${ws}/files`).set(admin.auth).attach('file', png, { filename: 'a.png', contentType: 'image/png' }).expect(201)).body;
      const key = (await t.db('files').where({ id: file.id }).first('blob_key')).blob_key as string;
      assert.deepEqual(await objects(), [`tessera/${key}`]);
      const stored = await client.send(new GetObjectCommand({ Bucket: server.bucket, Key: `tessera/${key}` }));
      assert.deepEqual(Buffer.from(await stored.Body!.transformToByteArray()), png);

      const content = await t.request.get(file.url).set(admin.auth).expect(200);
      assert.deepEqual(content.body, png);
      assert.equal(content.headers['content-type'], 'image/png');
      const signed = new URL((await t.request.post(`/api/v1/workspaces/${ws}/files/${file.id}/signed-url`).set(admin.auth).send({}).expect(201)).body.url).pathname;
      assert.deepEqual((await t.request.get(signed).expect(200)).body, png);

      // A refused upload leaves nothing in the bucket.
      await t.request.post(`/api/v1/workspaces/${ws}/files`).set(admin.auth).attach('file', Buffer.from('<svg/>'), { filename: 'x.png', contentType: 'image/png' }).expect(415);
      assert.deepEqual(await objects(), [`tessera/${key}`]);

      await t.request.post(`/api/v1/workspaces/${ws}/files/${file.id}/revoke`).set(admin.auth).expect(200);
      await t.request.get(signed).expect(404);
      await t.request.get(file.url).set(admin.auth).expect(404);
      await eventually(async () => (await objects()).length === 0, 'the object to leave the bucket');
    } finally {
      await t.stop();
    }
  });

  it('keeps record attachments and their thumbnails in the bucket, serves ranges from it, and empties it when they are deleted', async () => {
    const w = await attachmentsWorld(s3Config(server));
    try {
      const photo = await jpeg(1200, 900);
      const a = (await w.upload(photo, 'photo.jpg', 'image/jpeg')).body;
      assert.deepEqual([a.mime_type, a.width, a.height], ['image/jpeg', 1200, 900]);
      const get = (path: string, headers: Record<string, string> = {}) => w.t.request.get(path).set(w.member.auth).set(headers).buffer(true).parse(binary);
      assert.deepEqual((await get(a.url).expect(200)).body, photo);
      const part = await get(a.url, { Range: 'bytes=10-19' }).expect(206);
      assert.deepEqual(part.body, photo.subarray(10, 20));
      // The job makes both thumbnails; each is an object of its own beside the original.
      await eventually(async () => (await objects()).length === 3, 'the thumbnails in the bucket');
      const thumbnail = await get(`${a.thumbnail_url}?size=large`).expect(200);
      assert.equal(thumbnail.headers['content-type'], 'image/webp');

      await w.t.request.delete(w.att(`/${a.id}`)).set(w.editor.auth).expect(204);
      await eventually(async () => (await objects()).length === 0, 'the attachment and its thumbnails to leave the bucket');
    } finally {
      await w.t.stop();
    }
  });

  it('imports a CSV uploaded into the bucket, and keeps workspace export zips there', async () => {
    const w = await attachmentsWorld(s3Config(server));
    try {
      const imported = await w.t.request
        .post(`/api/v1/workspaces/${w.ws}/databases/${w.db}/import`)
        .set(w.admin.auth)
        .attach('file', Buffer.from('Name,Score\nFrom S3,0.5\n'), { filename: 'rows.csv', contentType: 'text/csv' })
        .field('mapping', JSON.stringify({ Name: 'name', Score: 'score' }))
        .expect(201);
      assert.deepEqual(imported.body, { created: 1 });
      await eventually(async () => (await objects()).length === 0, 'the uploaded CSV to leave the bucket once imported');

      const exportsUrl = `/api/v1/workspaces/${w.ws}/exports`;
      const id = (await w.t.request.post(exportsUrl).set(w.admin.auth).expect(202)).body.id;
      await eventually(async () => (await w.t.request.get(`${exportsUrl}/${id}`).set(w.admin.auth)).body.status === 'succeeded', 'the workspace export', 20_000);
      assert.deepEqual(await objects(), [`tessera/export/workspaces/${id}.zip`]);
      const zip = await w.t.request.get(`${exportsUrl}/${id}/download`).set(w.admin.auth).buffer(true).parse(binary).expect(200);
      const csv = Object.entries(unzipSync(new Uint8Array(zip.body as Buffer))).find(([path]) => path.endsWith('.csv'));
      assert.match(strFromU8(csv![1]), /From S3,/);
    } finally {
      await w.t.stop();
    }
  });

  it('stays off unless the configuration turns it on: blobs go to the local disk', async () => {
    const t = await startTestKernel({ plugins: [files, blobsS3] });
    try {
      assert.equal(t.kernel.isActive('blobs-s3'), false);
      assert.equal(t.kernel.blobs.provider, undefined);
    } finally {
      await t.stop();
    }
  });

  it('refuses to start when the bucket does not answer, saying which and why', async () => {
    const err = await startFailure(startTestKernel({ plugins: [blobsS3], config: s3Config(server, { bucket: 'missing-bucket' }) }));
    assert.deepEqual(err.pluginIds, ['blobs-s3']);
    assert.match(err.message, /"blobs-s3" failed during boot: bucket "missing-bucket" at http:\/\/127\.0\.0\.1:\d+ does not answer: it does not exist/);
  });

  it('takes its credentials from the environment ($env), and names the key of one that is not set', () => {
    const input = { plugins: { 'blobs-s3': { enabled: true, options: { bucket: 'b', accessKeyId: { $env: 'S3_KEY' }, secretAccessKey: { $env: 'S3_SECRET' } } } } };
    const config = loadConfig({ env: { S3_KEY: 'key-id', S3_SECRET: 'secret' }, input });
    assert.deepEqual(config.plugins['blobs-s3'].options, { bucket: 'b', accessKeyId: 'key-id', secretAccessKey: 'secret' });
    assert.throws(() => loadConfig({ env: { S3_KEY: 'key-id' }, input }), /"\/plugins\/blobs-s3\/options\/secretAccessKey".*S3_SECRET/);
  });

  it('refuses half a credential', async () => {
    const err = await startFailure(startTestKernel({ plugins: [blobsS3], config: s3Config(server, { secretAccessKey: undefined }) }));
    assert.match(err.message, /"blobs-s3" failed during register: set both accessKeyId and secretAccessKey/);
  });

  it('refuses to start when two plugins provide the blob store, naming both', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-other-store-'));
    const otherStore = definePlugin({
      id: 'other-store',
      version: '1.0.0',
      kernel: '^1.0.0',
      dependsOn: { 'blobs-s3': '^1.0.0' },
      register: (ctx) => ctx.provideBlobStore(new LocalDiskBlobStore(root)),
    });
    try {
      const err = await startFailure(startTestKernel({ plugins: [blobsS3, otherStore], config: s3Config(server) }));
      assert.match(err.message, /"other-store".*blob store.*already provided by plugin "blobs-s3"/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
