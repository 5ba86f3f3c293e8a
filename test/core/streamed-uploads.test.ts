import assert from 'node:assert/strict';
import { definePlugin } from '../../core/plugin.ts';
import { defineRoute } from '../../core/routes.ts';
import { safeFileName, streamedUpload } from '../../core/streamed-uploads.ts';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import type { BlobStore } from '../../core/blobs.ts';
import { uploadedBlobs } from '../fixtures/uploads.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const LIMIT = 256 * 1024;

/** An upload route that keeps the blob when asked to (`?keep=1`), and fails after reading it when asked to (`?fail=1`). */
const uploadProbe = definePlugin({
  id: 'upload-probe',
  version: '1.0.0',
  kernel: '^1.0.0',
  register(ctx) {
    ctx.routes([
      defineRoute({
        method: 'POST',
        path: '/upload-probe',
        summary: 'Stream a file into the blob store',
        auth: 'public',
        bodyType: 'upload',
        bodyLimit: LIMIT,
        responses: { 200: { description: 'What was stored' } },
        handler: ({ ctx: koa }) => {
          const upload = streamedUpload(koa, 'file');
          if (koa.query.fail) throw new Error('handler failed after the upload');
          if (koa.query.keep) upload.keep();
          return { key: upload.key, name: upload.name, size: upload.size, mime: upload.detected?.mime ?? null, head: upload.head.length };
        },
      }),
    ]);
  },
});

describe('streamed uploads (bodyType "upload")', () => {
  let t: TestKernel;
  let blobs: BlobStore;

  before(async () => {
    t = await startTestKernel({ plugins: [uploadProbe] });
    blobs = t.kernel.blobs;
  });
  after(() => t?.stop());

  it('stores the bytes under a fresh key, says what they are from the bytes, and keeps the blob only when the handler does', async () => {
    const bytes = Buffer.concat([PNG, Buffer.alloc(100 * 1024, 7)]);
    const kept = await t.request.post('/api/v1/upload-probe?keep=1').attach('file', bytes, { filename: '../../etc/pass\u202ewd.txt', contentType: 'application/pdf' });
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.equal(kept.body.mime, 'image/png', 'the declared type is ignored');
    assert.equal(kept.body.name, 'passwd.txt');
    assert.equal(kept.body.size, bytes.length);
    assert.equal(kept.body.head, 64 * 1024);
    assert.deepEqual(await blobs.read(kept.body.key), bytes);
    assert.ok(uploadedBlobs(t).includes(kept.body.key.split('/')[1]), 'the blob is on disk where this test looks');

    const dropped = await t.request.post('/api/v1/upload-probe').attach('file', Buffer.from('plain text'), 'note.txt');
    assert.equal(dropped.status, 200);
    assert.equal(dropped.body.mime, null);
    assert.equal(await blobs.exists(dropped.body.key), false, 'a blob no row kept is deleted');
  });

  it('deletes the blob when the handler fails, and stores nothing past the cap', async () => {
    const before = uploadedBlobs(t).length;
    const failed = await t.request.post('/api/v1/upload-probe?fail=1&keep=1').attach('file', PNG, 'a.png');
    assert.equal(failed.status, 500);
    const tooBig = await t.request.post('/api/v1/upload-probe?keep=1').attach('file', Buffer.alloc(LIMIT + 1), 'big.bin');
    assert.equal(tooBig.status, 413);
    assert.equal(tooBig.body.code, 'payload_too_large');
    assert.equal(uploadedBlobs(t).length, before, 'no blob and no temp file is left');
  });

  it('answers 422 without a file, and 415 for a part that is not a file', async () => {
    const none = await t.request.post('/api/v1/upload-probe').field('other', 'x');
    assert.equal(none.status, 422);
    const text = await t.request.post('/api/v1/upload-probe').field('file', 'x');
    assert.equal(text.status, 415);
  });

  it('makes client file names safe to store and to send back', () => {
    assert.equal(safeFileName('C:\\Users\\me\\report.pdf'), 'report.pdf');
    assert.equal(safeFileName('...'), 'file');
    assert.equal(safeFileName(null), 'file');
    assert.equal(safeFileName('a\u0000b\r\n.png'), 'ab.png');
    const long = safeFileName(`${'é'.repeat(300)}.jpeg`);
    assert.ok(Buffer.byteLength(long) <= 255 && long.endsWith('.jpeg'));
  });
});
