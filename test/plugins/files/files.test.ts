import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedUpUser } from '../../../core/testing.ts';
import { blobsSince, eventually, filesWorld, HTML, images, jpegWithBulkyMetadata, PDF, SVG, uploadedBlobs, type FilesWorld } from './setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

describe('files: editor images', () => {
  let w: FilesWorld;
  let png: Buffer;
  const upload = (bytes: Buffer, filename = 'pic.png', contentType = 'image/png', auth = w.editor.auth, ws = w.ws) =>
    w.t.request.post(w.url('', ws)).set(auth).attach('file', bytes, { filename, contentType });
  const mint = (id: string, body: object = {}, auth: Record<string, string> = w.member.auth) => w.t.request.post(w.url(`/${id}/signed-url`)).set(auth).send(body);
  const pathOf = (url: string) => new URL(url).pathname;
  const blobKey = async (id: string) => (await w.t.db('files').where({ id }).first('blob_key')).blob_key as string;

  /** The workspace's own files, and the blobs under `uploads/` when the test began: the kernel is the file's. */
  const fileCount = async () => Number((await w.t.db('files').where({ workspace_id: w.ws }).count({ n: '*' }))[0].n);
  let blobsBefore: string[];

  const kernel = suiteKernel();
  before(async () => {
    png = await images.png();
  });
  beforeEach(async () => {
    w = await filesWorld({}, kernel());
    blobsBefore = uploadedBlobs(w.t);
  });

  it('takes an image, judged by its bytes, and answers the File with its dimensions', async () => {
    const res = await upload(png, 'a/../Red dot.png').expect(201);
    const file = res.body;
    assert.deepEqual(Object.keys(file).sort(), ['created_at', 'created_by', 'height', 'id', 'mime_type', 'name', 'size', 'url', 'width', 'workspace_id']);
    assert.deepEqual(
      { name: file.name, mime_type: file.mime_type, size: file.size, width: file.width, height: file.height, created_by: file.created_by, workspace_id: file.workspace_id },
      { name: 'Red dot.png', mime_type: 'image/png', size: png.length, width: 3, height: 2, created_by: w.editor.id, workspace_id: w.ws },
    );
    assert.equal(file.url, `/api/v1/workspaces/${w.ws}/files/${file.id}/content`);
    assert.deepEqual((await w.t.kernel.blobs.read(await blobKey(file.id)))!, png);
    assert.deepEqual((await w.t.request.get(w.url(`/${file.id}`)).set(w.member.auth).expect(200)).body, file);

    // A PNG labelled as a PDF is a PNG; each image kind is read from its bytes, EXIF orientation applied.
    assert.equal((await upload(png, 'report.pdf', 'application/pdf').expect(201)).body.mime_type, 'image/png');
    const jpeg = (await upload(await images.jpeg(), 'x.jpg', 'image/jpeg').expect(201)).body;
    assert.deepEqual([jpeg.mime_type, jpeg.width, jpeg.height], ['image/jpeg', 2, 4]);
    const webp = (await upload(await images.webp(), 'x.webp', 'image/webp').expect(201)).body;
    assert.deepEqual([webp.mime_type, webp.width, webp.height], ['image/webp', 5, 5]);
    const gif = (await upload(await images.gif(), 'x.gif', 'image/gif').expect(201)).body;
    assert.deepEqual([gif.mime_type, gif.width, gif.height], ['image/gif', 2, 7]);
    assert.equal(blobsSince(w.t, blobsBefore).length, 5);
  });

  it('reads the dimensions of a JPEG whose metadata fills its first 64 KiB', async () => {
    const bulky = await jpegWithBulkyMetadata();
    const file = (await upload(bulky, 'phone.jpg', 'image/jpeg').expect(201)).body;
    assert.deepEqual([file.mime_type, file.width, file.height, file.size], ['image/jpeg', 6, 3, bulky.length]);
    // Cut before its frame header, it is refused.
    assert.equal((await upload(bulky.subarray(0, 100_000), 'cut.jpg', 'image/jpeg').expect(415)).body.code, 'unsupported_media_type');
  });

  it('refuses what is not an image (an SVG or HTML labelled as PNG, a PDF, an empty file) with 415, keeping nothing', async () => {
    for (const [bytes, name, type] of [
      [SVG, 'x.png', 'image/png'],
      [HTML, 'x.png', 'image/png'],
      [PDF, 'x.pdf', 'application/pdf'],
      [Buffer.alloc(0), 'x.png', 'image/png'],
      [png.subarray(0, 20), 'x.png', 'image/png'],
    ] as const) {
      const res = await upload(bytes, name, type).expect(415);
      assert.equal(res.body.code, 'unsupported_media_type', name);
      assert.equal(res.headers['content-type'], 'application/problem+json');
    }
    assert.equal(await fileCount(), 0);
    assert.deepEqual(blobsSince(w.t, blobsBefore), []);
  });

  it('refuses a missing file part, a text part and unknown fields with 422, keeping nothing', async () => {
    assert.equal((await w.t.request.post(w.url()).set(w.editor.auth).field('other', 'x').expect(422)).body.errors[0].pointer, '/file');
    await w.t.request.post(w.url()).set(w.editor.auth).field('file', 'not a file').expect(415);
    const extra = await w.t.request.post(w.url()).set(w.editor.auth).field('created_by', w.admin.id).attach('file', png, { filename: 'a.png', contentType: 'image/png' }).expect(422);
    assert.deepEqual(extra.body.errors.map((e: { pointer: string }) => e.pointer), ['/created_by']);
    await w.t.request.post(w.url()).set(w.editor.auth).send({ file: 'x' }).expect(415);
    assert.equal(await fileCount(), 0);
    assert.deepEqual(blobsSince(w.t, blobsBefore), []);
  });

  it('answers 413 above files.maxBytes, keeping nothing', async () => {
    w = await filesWorld({ config: { plugins: { files: { options: { maxBytes: png.length + 10 } } } } });
    try {
      await upload(png).expect(201);
      const big = Buffer.concat([png, Buffer.alloc(4096)]);
      const res = await upload(big);
      assert.equal(res.status, 413);
      assert.equal(res.body.code, 'payload_too_large');
      assert.equal(await fileCount(), 1);
      assert.equal(uploadedBlobs(w.t).length, 1);
    } finally {
      await w.t.stop();
    }
  });

  it('serves the bytes to members with the detected type, nosniff, inline, and an ETag answering 304', async () => {
    const file = (await upload(png, 'Ünïcode "quoted".png', 'application/octet-stream').expect(201)).body;
    const res = await w.t.request.get(file.url).set(w.member.auth).buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    }).expect(200);
    assert.deepEqual(res.body, png);
    assert.equal(res.headers['content-type'], 'image/png');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['content-length'], String(png.length));
    assert.equal(res.headers['content-disposition'], `inline; filename="_n_code _quoted_.png"; filename*=UTF-8''%C3%9Cn%C3%AFcode%20%22quoted%22.png`);
    assert.match(res.headers['cache-control'], /no-cache/);
    const etag = res.headers.etag;
    assert.ok(etag);
    const cached = await w.t.request.get(file.url).set(w.member.auth).set('If-None-Match', etag).expect(304);
    assert.equal(cached.headers.etag, etag);
    await w.t.request.get(file.url).set(w.member.auth).set('If-None-Match', '"other"').expect(200);
    // HEAD: the headers alone.
    const head = await w.t.request.head(file.url).set(w.member.auth).expect(200);
    assert.deepEqual([head.headers['content-type'], head.headers['content-length'], head.headers.etag], ['image/png', String(png.length), etag]);
    assert.deepEqual(head.body, {});
  });

  it('lets editors and up upload, members and up read, and hides files from guests and outsiders (404)', async () => {
    await upload(png, 'x.png', 'image/png', w.member.auth).expect(403);
    await upload(png, 'x.png', 'image/png', w.guest.auth).expect(403);
    await upload(png, 'x.png', 'image/png', w.outsider.auth).expect(404);
    await w.t.request.post(w.url()).attach('file', png, { filename: 'x.png', contentType: 'image/png' }).expect(401);
    const file = (await upload(png, 'x.png', 'image/png', w.admin.auth).expect(201)).body;
    for (const who of [w.admin, w.creator, w.editor, w.member]) {
      await w.t.request.get(w.url(`/${file.id}`)).set(who.auth).expect(200);
      await w.t.request.get(file.url).set(who.auth).expect(200);
    }
    for (const who of [w.guest, w.outsider]) {
      await w.t.request.get(w.url(`/${file.id}`)).set(who.auth).expect(404);
      await w.t.request.get(file.url).set(who.auth).expect(404);
      await mint(file.id, {}, who.auth).expect(404);
    }
    await w.t.request.get(file.url).expect(401);
    // The outsider's own workspace does not hold it either.
    await w.t.request.get(w.url(`/${file.id}`, w.otherWs)).set(w.outsider.auth).expect(404);
    await w.t.request.get(w.url(`/${randomUUID()}`)).set(w.member.auth).expect(404);
    await w.t.request.get(w.url('/not-a-uuid')).set(w.member.auth).expect(404);
  });

  it('mints signed URLs that serve the bytes without a credential until they expire', async () => {
    const file = (await upload(png).expect(201)).body;
    const before = Date.now();
    const minted = await mint(file.id).expect(201);
    assert.equal(minted.headers['cache-control'], 'no-store');
    const { url, expires_at } = minted.body;
    assert.ok(url.startsWith(`${w.t.url}/api/v1/files/signed/`), url);
    const expires = Date.parse(expires_at);
    assert.ok(expires >= Math.floor(before / 1000) * 1000 + 3600_000 && expires <= Date.now() + 3600_000, expires_at);
    const served = await w.t.request.get(pathOf(url)).expect(200);
    assert.equal(served.headers['content-type'], 'image/png');
    assert.equal(served.headers['x-content-type-options'], 'nosniff');
    assert.deepEqual(served.body, png);
    await w.t.request.get(pathOf(url)).set('If-None-Match', served.headers.etag).expect(304);

    const week = (await mint(file.id, { expires_in: 604800 }).expect(201)).body;
    assert.ok(Math.abs(Date.parse(week.expires_at) - (Date.now() + 604800_000)) < 5000);
    await mint(file.id, { expires_in: 60 }).expect(201);

    const service = w.t.container.resolverFor('files')('files.service');
    const past = await service.tokenFor(file.id, Math.floor(Date.now() / 1000) - 1);
    assert.equal((await w.t.request.get(`/api/v1/files/signed/${past}`).expect(404)).body.code, 'not_found');
    const soon = await service.tokenFor(file.id, Math.floor(Date.now() / 1000) + 30);
    await w.t.request.get(`/api/v1/files/signed/${soon}`).expect(200);
  });

  it('refuses expires_in outside 60–604800 or not an integer, and unknown members, with 422', async () => {
    const file = (await upload(png).expect(201)).body;
    for (const expires_in of [59, 604801, 'x', 3600.5, null, -1]) {
      const res = await mint(file.id, { expires_in }).expect(422);
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/expires_in'], String(expires_in));
    }
    assert.deepEqual((await mint(file.id, { expires_in: 60, file_id: randomUUID() }).expect(422)).body.errors.map((e: { pointer: string }) => e.pointer), ['/file_id']);
    await mint(randomUUID()).expect(404);
  });

  it('answers 404 to a tampered, truncated or made-up token', async function () {
    // It starts a second kernel: on a loaded CI machine that alone can take most of a minute.
    this.timeout(180_000);
    const file = (await upload(png).expect(201)).body;
    const token = pathOf((await mint(file.id).expect(201)).body.url).split('/').pop()!;
    await w.t.request.get(`/api/v1/files/signed/${token}`).expect(200);
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const bad of [flip(token, 0), flip(token, 20), flip(token, 30), flip(token, 63), token.slice(0, 63), `${token}A`, 'A'.repeat(64), 'x', '..%2F..%2Fetc']) {
      await w.t.request.get(`/api/v1/files/signed/${bad}`).expect(404);
    }
    // A valid MAC under another instance's key opens nothing here.
    const other = await filesWorld({ config: { plugins: { files: { options: { signingKey: 'k'.repeat(40) } } } } });
    try {
      const theirs = (await other.t.request.post(other.url()).set(other.editor.auth).attach('file', png, { filename: 'a.png', contentType: 'image/png' }).expect(201)).body;
      const theirToken = pathOf((await other.t.request.post(other.url(`/${theirs.id}/signed-url`)).set(other.member.auth).send({}).expect(201)).body.url).split('/').pop()!;
      await other.t.request.get(`/api/v1/files/signed/${theirToken}`).expect(200);
      await w.t.request.get(`/api/v1/files/signed/${theirToken}`).expect(404);
    } finally {
      await other.t.stop();
    }
  });

  it('revokes a file: it, its bytes and every signed URL minted before answer 404 at once, and no new one is minted', async () => {
    const file = (await upload(png).expect(201)).body;
    const key = await blobKey(file.id);
    const first = pathOf((await mint(file.id).expect(201)).body.url);
    const second = pathOf((await mint(file.id, { expires_in: 604800 }, w.editor.auth).expect(201)).body.url);
    await w.t.request.get(first).expect(200);
    await w.t.request.get(second).expect(200);
    const revoked = (await w.t.request.post(w.url(`/${file.id}/revoke`)).set(w.editor.auth).expect(200)).body;
    assert.equal(revoked.id, file.id);
    assert.ok(Date.parse(revoked.revoked_at) <= Date.now());
    await w.t.request.get(first).expect(404);
    await w.t.request.get(second).expect(404);
    await w.t.request.get(w.url(`/${file.id}`)).set(w.admin.auth).expect(404);
    await w.t.request.get(file.url).set(w.admin.auth).expect(404);
    await mint(file.id, {}, w.admin.auth).expect(404);
    await w.t.request.post(w.url(`/${file.id}/revoke`)).set(w.admin.auth).expect(404);
    // A token made with the generation it had before is still refused; the bytes are gone.
    const old = await w.t.container.resolverFor('files')('files.service').tokenFor(file.id, Math.floor(Date.now() / 1000) + 600);
    await w.t.request.get(`/api/v1/files/signed/${old}`).expect(404);
    await eventually(async () => !(await w.t.kernel.blobs.exists(key)), 'the revoked file’s bytes to be deleted');
    assert.deepEqual(await w.t.db('files').where({ id: file.id }).first('generation'), { generation: 1 });
  });

  it('lets the uploader (an editor), a creator or an admin revoke; not a member or another editor', async () => {
    const other: SignedUpUser = w.creator;
    const mine = (await upload(png).expect(201)).body;
    await w.t.request.post(w.url(`/${mine.id}/revoke`)).set(w.member.auth).expect(403);
    await w.t.request.post(w.url(`/${mine.id}/revoke`)).set(w.guest.auth).expect(404);
    await w.t.request.post(w.url(`/${mine.id}/revoke`)).set(w.outsider.auth).expect(404);
    const byAdmin = (await upload(png, 'x.png', 'image/png', w.admin.auth).expect(201)).body;
    await w.t.request.post(w.url(`/${byAdmin.id}/revoke`)).set(w.editor.auth).expect(403);
    await w.t.request.post(w.url(`/${byAdmin.id}/revoke`)).set(other.auth).expect(200);
    await w.t.request.post(w.url(`/${mine.id}/revoke`)).set(w.editor.auth).expect(200);
    const third = (await upload(png).expect(201)).body;
    await w.t.request.post(w.url(`/${third.id}/revoke`)).set(w.admin.auth).expect(200);
  });

  it('lets documents show images of live files of their workspace only', async () => {
    const file = (await upload(png).expect(201)).body;
    const theirs = (await upload(png, 'x.png', 'image/png', w.outsider.auth, w.otherWs).expect(201)).body;
    const doc = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/documents`).set(w.creator.auth).send({ title: 'Gallery', space_id: w.space }).expect(201)).body;
    const put = (fileId: string, version: number) =>
      w.t.request
        .put(`/api/v1/workspaces/${w.ws}/documents/${doc.id}/content`)
        .set(w.editor.auth)
        .send({ content: { type: 'doc', content: [{ type: 'image', attrs: { file_id: fileId } }] }, version });
    assert.equal((await put(file.id, 0).expect(200)).body.version, 1);
    assert.deepEqual((await put(theirs.id, 1).expect(422)).body.errors.map((e: { pointer: string }) => e.pointer), ['/content/content/0/attrs/file_id']);
    await put(randomUUID(), 1).expect(422);
    await w.t.request.post(w.url(`/${file.id}/revoke`)).set(w.admin.auth).expect(200);
    await put(file.id, 1).expect(422);
  });

  it('go with their workspace, bytes included', async () => {
    const file = (await upload(png).expect(201)).body;
    const key = await blobKey(file.id);
    const theirs = (await upload(png, 'x.png', 'image/png', w.outsider.auth, w.otherWs).expect(201)).body;
    await w.t.request.delete(`/api/v1/workspaces/${w.ws}`).set(w.admin.auth).expect(204);
    assert.equal(await w.t.db('files').where({ id: file.id }).first(), undefined);
    await eventually(async () => !(await w.t.kernel.blobs.exists(key)), 'the workspace’s file bytes to be deleted');
    await w.t.request.get(w.url(`/${theirs.id}`, w.otherWs)).set(w.outsider.auth).expect(200);
    assert.ok(await w.t.kernel.blobs.exists(await blobKey(theirs.id)));
  });
});
