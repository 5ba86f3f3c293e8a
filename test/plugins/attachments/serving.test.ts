import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { attachmentsWorld, binary, eventually, jpeg, png, pngAnnouncing, type AttachmentsWorld } from './setup.ts';

describe('attachments: serving bytes and thumbnails', () => {
  describe('with the thumbnail job running', () => {
    let w: AttachmentsWorld;
    before(async () => {
      w = await attachmentsWorld();
    });
    after(() => w.t.stop());
    const get = (path: string, headers: Record<string, string> = {}) => w.t.request.get(path).set(w.member.auth).set(headers).buffer(true).parse(binary);

    it('takes the type from the bytes: a PNG labelled as a PDF is served as image/png, inline', async () => {
      const bytes = await png(40, 30);
      const a = (await w.upload(bytes, 'scan.pdf', 'application/pdf')).body;
      assert.equal(a.mime_type, 'image/png');
      const res = await get(a.url).expect(200);
      assert.equal(res.headers['content-type'], 'image/png');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.match(res.headers['content-disposition'], /^inline; filename="scan.pdf"/);
      assert.equal(res.headers['content-length'], String(bytes.length));
      assert.deepEqual(res.body, bytes);
    });

    for (const [what, text] of [
      ['an SVG', '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script></svg>'],
      ['an HTML page', '<!doctype html><html><body><script>alert(document.cookie)</script></body></html>'],
    ]) {
      it(`serves ${what} labelled image/png as a download, never as an image or a page, and makes no thumbnail of it`, async () => {
        const a = (await w.upload(Buffer.from(text), 'cat.png', 'image/png')).body;
        assert.equal(a.mime_type, 'application/octet-stream');
        assert.deepEqual([a.width, a.height, a.thumbnail_url], [null, null, null]);
        const res = await get(a.url).expect(200);
        assert.equal(res.headers['content-type'], 'application/octet-stream');
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
        assert.match(res.headers['content-disposition'], /^attachment; filename="cat.png"/);
        assert.equal(res.body.toString(), text);
        const thumb = await w.t.request.get(`${w.att(`/${a.id}`)}/thumbnail`).set(w.member.auth).expect(404);
        assert.equal(thumb.body.code, 'not_found');
      });
    }

    it('answers single ranges with 206, a range past the end with 416, several ranges with the whole file', async () => {
      const bytes = randomBytes(100_000);
      const a = (await w.upload(bytes, 'data.bin')).body;
      const first = await get(a.url, { Range: 'bytes=0-99' }).expect(206);
      assert.equal(first.headers['content-range'], 'bytes 0-99/100000');
      assert.equal(first.headers['content-length'], '100');
      assert.deepEqual(first.body, bytes.subarray(0, 100));
      const open = await get(a.url, { Range: 'bytes=99990-' }).expect(206);
      assert.equal(open.headers['content-range'], 'bytes 99990-99999/100000');
      assert.deepEqual(open.body, bytes.subarray(99_990));
      const suffix = await get(a.url, { Range: 'bytes=-10' }).expect(206);
      assert.deepEqual(suffix.body, bytes.subarray(99_990));
      const clipped = await get(a.url, { Range: 'bytes=99000-200000' }).expect(206);
      assert.equal(clipped.headers['content-range'], 'bytes 99000-99999/100000');
      const past = await w.t.request.get(a.url).set(w.member.auth).set('Range', 'bytes=100000-').expect(416);
      assert.equal(past.headers['content-range'], 'bytes */100000');
      assert.equal(past.body.code, 'range_not_satisfiable');
      assert.equal(past.body.title, 'Range Not Satisfiable');
      const several = await get(a.url, { Range: 'bytes=0-1,5-6' }).expect(200);
      assert.equal(several.body.length, 100_000);
      assert.equal((await get(a.url, { Range: 'lines=1-2' }).expect(200)).body.length, 100_000);
      const etag = first.headers.etag;
      assert.equal((await get(a.url, { Range: 'bytes=0-9', 'If-Range': etag }).expect(206)).body.length, 10);
      assert.equal((await get(a.url, { Range: 'bytes=0-9', 'If-Range': '"stale"' }).expect(200)).body.length, 100_000);
      assert.equal(first.headers['accept-ranges'], 'bytes');
    });

    it('answers 304 to a matching If-None-Match, and the ETag differs between files', async () => {
      const a = (await w.upload(Buffer.from('one'), 'one.txt')).body;
      const b = (await w.upload(Buffer.from('one'), 'two.txt')).body;
      const res = await get(a.url).expect(200);
      const etag = res.headers.etag;
      assert.match(etag, /^".+"$/);
      const again = await w.t.request.get(a.url).set(w.member.auth).set('If-None-Match', etag).expect(304);
      assert.equal(again.headers.etag, etag);
      await get(a.url, { 'If-None-Match': '"other"' }).expect(200);
      assert.notEqual((await get(b.url).expect(200)).headers.etag, etag);
    });

    it('makes small and large WebP thumbnails in the job, fitting 200 and 800 pixels', async () => {
      const a = (await w.upload(await jpeg(1600, 1000), 'photo.jpg', 'image/jpeg')).body;
      await eventually(async () => {
        const row = await w.t.db('attachment_blobs').join('attachments', 'attachments.blob_key', 'attachment_blobs.key').where('attachments.id', a.id).first('small_key', 'large_key');
        return !!(row?.small_key && row?.large_key);
      }, 'the thumbnail job');
      for (const [size, width, height] of [['small', 200, 125], ['large', 800, 500]] as const) {
        const res = await get(`${a.thumbnail_url}?size=${size}`).expect(200);
        assert.equal(res.headers['content-type'], 'image/webp');
        assert.match(res.headers['content-disposition'], /^inline; filename="photo-[a-z]+\.webp"/);
        const meta = await sharp(res.body).metadata();
        assert.deepEqual([meta.format, meta.width, meta.height], ['webp', width, height]);
      }
      const small = await get(a.thumbnail_url).expect(200);
      assert.equal((await sharp(small.body).metadata()).width, 200, 'small is the default');
      await w.t.request.get(`${a.thumbnail_url}?size=huge`).set(w.member.auth).expect(422);
      await w.t.request.get(a.thumbnail_url).set(w.outsider.auth).expect(404);
    });

    it('never enlarges a small image', async () => {
      const a = (await w.upload(await png(50, 20), 'tiny.png', 'image/png')).body;
      const res = await get(`${a.thumbnail_url}?size=large`).expect(200);
      const meta = await sharp(res.body).metadata();
      assert.deepEqual([meta.width, meta.height], [50, 20]);
    });
  });

  describe('with no job running', () => {
    let w: AttachmentsWorld;
    before(async () => {
      w = await attachmentsWorld({ jobs: { enabled: false } });
    });
    after(() => w.t.stop());

    it('makes a thumbnail on demand, once, and keeps it', async () => {
      const a = (await w.upload(await png(1000, 400), 'wide.png', 'image/png')).body;
      const blob = () => w.t.db('attachment_blobs').join('attachments', 'attachments.blob_key', 'attachment_blobs.key').where('attachments.id', a.id).first('small_key', 'large_key');
      assert.deepEqual(await blob(), { small_key: null, large_key: null });
      const res = await w.t.request.get(`${a.thumbnail_url}?size=large`).set(w.member.auth).buffer(true).parse(binary).expect(200);
      const meta = await sharp(res.body).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 800, 320]);
      const made = await blob();
      assert.equal(made.small_key, null);
      assert.ok(made.large_key);
      await w.t.request.get(`${a.thumbnail_url}?size=large`).set(w.member.auth).expect(200);
      assert.deepEqual(await blob(), made);
      assert.equal(await w.t.kernel.blobs.exists(made.large_key), true);

      await w.t.kernel.blobs.delete(made.large_key);
      const again = await w.t.request.get(`${a.thumbnail_url}?size=large`).set(w.member.auth).buffer(true).parse(binary).expect(200);
      assert.equal((await sharp(again.body).metadata()).width, 800, 'a thumbnail whose bytes went missing is made again');
      const remade = await blob();
      assert.notEqual(remade.large_key, made.large_key);
      assert.equal(await w.t.kernel.blobs.exists(remade.large_key), true);
    });

    it('refuses a decompression bomb a thumbnail (404) but keeps the upload', async () => {
      const bomb = pngAnnouncing(100_000, 100_000);
      const res = await w.upload(bomb, 'bomb.png', 'image/png');
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual([res.body.mime_type, res.body.width, res.body.height], ['image/png', 100_000, 100_000]);
      const before = process.memoryUsage().rss;
      await w.t.request.get(res.body.thumbnail_url).set(w.member.auth).expect(404);
      assert.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024, 'no memory spent on the bomb');
      const record = (await w.t.request.get(w.url(`/${w.record}`)).set(w.member.auth).expect(200)).body;
      assert.equal(record.values.files.find((f: { id: string }) => f.id === res.body.id).thumbnail_url, null, 'the cell no longer offers a thumbnail');
      await w.t.request.get(res.body.url).set(w.member.auth).expect(200);
    });

    it('gives up on an image whose bytes do not decode', async () => {
      const good = await png(100, 100);
      const broken = Buffer.concat([good.subarray(0, 40), Buffer.alloc(200, 7)]);
      const a = (await w.upload(broken, 'broken.png', 'image/png')).body;
      assert.equal(a.mime_type, 'image/png');
      await w.t.request.get(a.thumbnail_url).set(w.member.auth).expect(404);
      assert.equal((await w.t.db('attachment_blobs').join('attachments', 'attachments.blob_key', 'attachment_blobs.key').where('attachments.id', a.id).first('thumbnail_failed')).thumbnail_failed, true);
    });
  });
});
