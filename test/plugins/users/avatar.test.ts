import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { startTestKernel, type TestKernel, signUp, createWorkspace, joinWorkspace, type SignedUpUser } from '../../../core/testing.ts';
import { definePlugin } from '../../../core/plugin.ts';
import { builtinPlugins } from '../../../plugins/index.ts';
import { createPat } from '../tokens/helpers.ts';
import { GIF, JPEG, PDF, PNG, WEBP, pngOfSize } from './images.ts';
import { LINGER_BYTES } from '../../../core/linger.ts';

const MB = 1024 * 1024;

/** Records, per request, the headers it came with and the temp files the multipart parser left. */
const seen = { headers: {} as http.IncomingHttpHeaders, files: [] as string[] };
const probe = definePlugin({
  id: 'upload-probe',
  version: '1.0.0',
  kernel: '^1.0.0',
  register(ctx) {
    ctx.hooks.http.middleware.tap('upload-probe', (entries) => [
      ...entries,
      {
        name: 'upload-probe',
        stage: 'beforeAuthentication',
        middleware: async (kctx: Context, next: Next) => {
          seen.headers = kctx.req.headers;
          try {
            await next();
          } finally {
            seen.files = Object.values(kctx.request.files ?? {}).flat().map((f) => f.filepath);
          }
        },
      },
    ]);
  },
});

interface ChunkedResult {
  status: number;
  body: { code?: string };
  /** Bytes the server read from the connection, of the `offered` the client tried to send. */
  serverBytesRead: number;
}

/** A multipart upload sent with chunked transfer encoding (no Content-Length), offering `offered` bytes of file. */
function uploadChunked(t: TestKernel, auth: Record<string, string>, file: Buffer, offered = file.length): Promise<ChunkedResult> {
  const boundary = `b${randomUUID()}`;
  return new Promise((resolve, reject) => {
    let socket: net.Socket | undefined;
    t.kernel.server!.once('connection', (s) => (socket = s));
    const req = http.request(`${t.url}/api/v1/me/avatar`, {
      method: 'PUT',
      headers: { ...auth, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    });
    let answered = false;
    req.on('error', (err) => {
      // Once the server has answered, it may close while we are still writing.
      if (!answered) reject(err);
    });
    req.on('response', (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        // Let the server close and account for anything still in flight.
        setTimeout(() => {
          resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(parts).toString() || '{}'), serverBytesRead: socket?.bytesRead ?? -1 });
        }, 200);
      });
    });
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`);
    const pump = async () => {
      for (let sent = 0; sent < offered && !answered; ) {
        const piece = sent < file.length ? file.subarray(sent, sent + 64 * 1024) : Buffer.alloc(64 * 1024);
        sent += piece.length;
        if (!req.write(piece)) await new Promise((r) => { req.once('drain', r); setTimeout(r, 50); });
      }
      if (!answered) req.end(`\r\n--${boundary}--\r\n`);
    };
    void pump();
  });
}

describe('users: avatars', () => {
  let t: TestKernel;
  let viewer: SignedUpUser;

  before(async () => {
    t = await startTestKernel({ plugins: [...builtinPlugins, probe] });
    viewer = await signUp(t);
  });
  after(() => t.stop());

  const put = (u: SignedUpUser | Record<string, string>, file: Buffer, filename: string, contentType: string) =>
    t.request
      .put('/api/v1/me/avatar')
      .set('auth' in u ? (u.auth as Record<string, string>) : u)
      .attach('file', file, { filename, contentType });
  const avatarOf = (id: string, auth: Record<string, string> = viewer.auth) =>
    t.request.get(`/api/v1/users/${id}/avatar`).set(auth).buffer(true).parse((res, cb) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => cb(null, Buffer.concat(parts)));
    });
  const me = async (u: SignedUpUser) => (await t.request.get('/api/v1/me').set(u.auth).expect(200)).body;
  const blobExists = (id: string) => t.kernel.blobs.exists(`avatars/${id}`);

  /** The user has no avatar anywhere: not in /me, not in the users row, not in the blob store. */
  async function assertNoAvatar(u: SignedUpUser) {
    assert.equal((await me(u)).avatar_url, null);
    const row = await t.db('users').where({ id: u.id }).first('avatar_key', 'avatar_updated_at');
    assert.deepEqual(row, { avatar_key: null, avatar_updated_at: null });
    assert.equal(await blobExists(u.id), false);
    await avatarOf(u.id).expect(404);
  }

  async function assertUploadsDiscarded() {
    assert.ok(seen.files.length > 0, 'the request left no upload to check');
    for (const f of seen.files) assert.equal(fs.existsSync(f), false, `temp file ${f} was left behind`);
  }

  for (const [name, bytes, mime, filename] of [
    ['PNG', PNG, 'image/png', 'me.png'],
    ['JPEG', JPEG, 'image/jpeg', 'me.jpg'],
    ['WebP', WEBP, 'image/webp', 'me.webp'],
  ] as const) {
    it(`accepts a ${name}, shows it in /me and serves its bytes as ${mime} to a session`, async () => {
      const u = await signUp(t);
      const res = await put(u, bytes, filename, mime).expect(200);
      await assertUploadsDiscarded();
      assert.equal(res.body.id, u.id);
      assert.match(res.body.avatar_url, new RegExp(`^/api/v1/users/${u.id}/avatar`));
      assert.deepEqual(Object.keys(res.body).sort(), ['avatar_url', 'created_at', 'email', 'id', 'name']);
      assert.equal((await me(u)).avatar_url, res.body.avatar_url);

      const img = await avatarOf(u.id).expect(200);
      assert.equal(img.headers['content-type'], mime);
      assert.ok(Buffer.isBuffer(img.body) && img.body.equals(bytes), 'served bytes differ from the upload');
      assert.match(img.headers['cache-control'], /^private, max-age=\d+$/);
      assert.match(img.headers.etag, /^"[^"]+"$/);
    });
  }

  it('follows avatar_url (with its cache-busting query) and answers 304 to a matching If-None-Match', async () => {
    const u = await signUp(t);
    const { avatar_url } = (await put(u, PNG, 'a.png', 'image/png').expect(200)).body;
    const first = await t.request.get(avatar_url).set(viewer.auth).expect(200);
    const again = await t.request.get(avatar_url).set(viewer.auth).set('If-None-Match', first.headers.etag).expect(304);
    assert.equal(again.headers.etag, first.headers.etag);
    assert.equal(again.text, '');
  });

  it('replaces the avatar: new bytes, new type, new ETag and a new avatar_url', async () => {
    const u = await signUp(t);
    const a = (await put(u, PNG, 'a.png', 'image/png').expect(200)).body.avatar_url;
    const etagA = (await avatarOf(u.id).expect(200)).headers.etag;
    await new Promise((r) => setTimeout(r, 5));
    const b = (await put(u, WEBP, 'b.webp', 'image/webp').expect(200)).body.avatar_url;
    assert.notEqual(b, a);
    const img = await avatarOf(u.id).expect(200);
    assert.equal(img.headers['content-type'], 'image/webp');
    assert.ok(img.body.equals(WEBP));
    assert.notEqual(img.headers.etag, etagA);
  });

  it('judges by the bytes: a PNG declared as image/gif named .gif is stored and served as image/png', async () => {
    const u = await signUp(t);
    await put(u, PNG, 'cat.gif', 'image/gif').expect(200);
    const img = await avatarOf(u.id).expect(200);
    assert.equal(img.headers['content-type'], 'image/png');
    assert.ok(img.body.equals(PNG));
  });

  for (const [name, bytes] of [
    ['a GIF', GIF],
    ['a PDF', PDF],
    ['plain text', Buffer.from('definitely not an image\n')],
    ['an empty file', Buffer.alloc(0)],
  ] as const) {
    it(`refuses ${name} declared as image/png with 415 and stores nothing`, async () => {
      const u = await signUp(t);
      const res = await put(u, bytes, 'avatar.png', 'image/png').expect(415);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      assert.equal(res.body.code, 'unsupported_media_type');
      assert.equal(res.body.status, 415);
      await assertUploadsDiscarded();
      await assertNoAvatar(u);
    });
  }

  it('keeps the previous avatar when a refused file is sent', async () => {
    const u = await signUp(t);
    await put(u, JPEG, 'a.jpg', 'image/jpeg').expect(200);
    await put(u, GIF, 'b.png', 'image/png').expect(415);
    const img = await avatarOf(u.id).expect(200);
    assert.equal(img.headers['content-type'], 'image/jpeg');
    assert.ok(img.body.equals(JPEG));
  });

  it('answers 415 to a body that is not multipart, and to a `file` part that is text, not a file', async () => {
    const u = await signUp(t);
    const json = await t.request.put('/api/v1/me/avatar').set(u.auth).send({ file: PNG.toString('base64') }).expect(415);
    assert.equal(json.body.code, 'unsupported_media_type');
    const text = await t.request.put('/api/v1/me/avatar').set(u.auth).field('file', 'hello').expect(415);
    assert.equal(text.body.code, 'unsupported_media_type');
    await assertNoAvatar(u);
  });

  it('answers 422 with pointer /file when the `file` field is missing, discarding other uploads', async () => {
    const u = await signUp(t);
    const res = await t.request.put('/api/v1/me/avatar').set(u.auth).attach('avatar', PNG, { filename: 'a.png', contentType: 'image/png' }).expect(422);
    assert.equal(res.body.code, 'validation_failed');
    assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/file']);
    await assertUploadsDiscarded();
    const empty = await t.request.put('/api/v1/me/avatar').set(u.auth).expect(422);
    assert.deepEqual(empty.body.errors.map((e: { pointer: string }) => e.pointer), ['/file']);
    await assertNoAvatar(u);
  });

  it('accepts exactly 1 MiB', async () => {
    const u = await signUp(t);
    await put(u, pngOfSize(MB), 'big.png', 'image/png').expect(200);
    assert.equal((await avatarOf(u.id).expect(200)).body.length, MB);
  });

  it('refuses 1 MiB + 1 byte sent with Content-Length: 413, nothing stored', async () => {
    const u = await signUp(t);
    const res = await put(u, pngOfSize(MB + 1), 'big.png', 'image/png').expect(413);
    assert.ok(Number(seen.headers['content-length']) > MB, 'the request announced its length');
    assert.equal(res.body.code, 'payload_too_large');
    await assertNoAvatar(u);
  });

  it('counts a text part against the limit too: over 1 MiB of text in `file` is a 413', async () => {
    const u = await signUp(t);
    const res = await t.request.put('/api/v1/me/avatar').set(u.auth).field('file', 'x'.repeat(MB + 1)).expect(413);
    assert.equal(res.body.code, 'payload_too_large');
    await assertNoAvatar(u);
  });

  it('refuses an announced body far over the limit before reading it, and discards at most LINGER_BYTES of it', async () => {
    const u = await signUp(t);
    let socket: net.Socket | undefined;
    t.kernel.server!.once('connection', (s) => (socket = s));
    const res = await put(u, pngOfSize(8 * MB), 'big.png', 'image/png').expect(413);
    assert.equal(res.body.code, 'payload_too_large');
    assert.equal(res.headers.connection, 'close');
    await new Promise((r) => setTimeout(r, 200));
    // Once answered, the server reads and discards a bounded part of the rest, so the client can read the 413 (linger.ts).
    assert.ok(socket && socket.bytesRead < LINGER_BYTES + 256 * 1024, `the server read ${socket?.bytesRead} bytes`);
    await assertNoAvatar(u);
  });

  it('refuses 1 MiB + 1 byte sent chunked (no Content-Length): 413, nothing stored', async () => {
    const u = await signUp(t);
    const res = await uploadChunked(t, u.auth, pngOfSize(MB + 1));
    assert.equal(seen.headers['content-length'], undefined);
    assert.equal(seen.headers['transfer-encoding'], 'chunked');
    assert.equal(res.status, 413);
    assert.equal(res.body.code, 'payload_too_large');
    await assertNoAvatar(u);
  });

  it('stops reading a chunked upload soon after 1 MiB, however much the client offers', async () => {
    const u = await signUp(t);
    const res = await uploadChunked(t, u.auth, PNG, 16 * MB);
    assert.equal(res.status, 413);
    // Refused at 1 MiB; then at most LINGER_BYTES more are read and discarded while the answer reaches the client.
    assert.ok(res.serverBytesRead > MB && res.serverBytesRead < 1.5 * MB + LINGER_BYTES, `the server read ${res.serverBytesRead} bytes`);
    await assertNoAvatar(u);
  });

  it('still serves requests after refusing an upload', async () => {
    await t.request.get('/api/v1/health').expect(200);
  });

  describe('who may do what', () => {
    let owner: SignedUpUser;
    const pat = async (u: SignedUpUser, scope: 'read' | 'write') => {
      return (await createPat(t, u, { name: `avatar ${scope}`, scope })).auth;
    };

    before(async () => {
      owner = await signUp(t);
      await put(owner, PNG, 'a.png', 'image/png').expect(200);
    });

    it('serves an avatar to its owner, to whoever shares a workspace with them, and to instance admins', async () => {
      await avatarOf(owner.id, owner.auth).expect(200);
      // The first account of the instance is its admin, and shares no workspace with the owner.
      await avatarOf(owner.id, viewer.auth).expect(200);
      const colleague = await signUp(t);
      const ws = await createWorkspace(t, owner);
      const space = (await t.request.post(`/api/v1/workspaces/${ws.id}/spaces`).set(owner.auth).send({ name: 'S' }).expect(201)).body.id;
      await joinWorkspace(t, owner, ws.id, colleague, 'guest', [space]);
      await avatarOf(owner.id, colleague.auth).expect(200);
      await avatarOf(colleague.id, owner.auth).expect(404);
    });

    it('answers someone who shares no workspace with the owner exactly as for an unknown user: 404', async () => {
      const stranger = await signUp(t);
      // The stranger has workspaces of their own, just none with the owner.
      await createWorkspace(t, stranger);
      const theirs = await avatarOf(owner.id, stranger.auth).expect(404);
      const unknown = await avatarOf(randomUUID(), stranger.auth).expect(404);
      const shape = (res: { headers: Record<string, string>; body: Buffer }) => {
        const { request_id: _, ...problem } = JSON.parse(res.body.toString());
        return { type: res.headers['content-type'], etag: res.headers.etag, problem };
      };
      assert.deepEqual(shape(theirs), shape(unknown));
      assert.equal(shape(theirs).etag, undefined);
      // Once they share one, they see it; once that ends, they no longer do.
      const ws = await createWorkspace(t, owner);
      await joinWorkspace(t, owner, ws.id, stranger, 'member');
      await avatarOf(owner.id, stranger.auth).expect(200);
      await t.request.delete(`/api/v1/workspaces/${ws.id}/members/${stranger.id}`).set(owner.auth).expect(204);
      await avatarOf(owner.id, stranger.auth).expect(404);
    });

    it('refuses a personal access token on GET /users/{id}/avatar with 403, even with write scope', async () => {
      for (const scope of ['read', 'write'] as const) {
        const res = await avatarOf(owner.id, await pat(viewer, scope)).expect(403);
        assert.equal(res.headers['content-type'], 'application/problem+json');
      }
    });

    it('refuses anonymous callers with 401', async () => {
      const res = await t.request.get(`/api/v1/users/${owner.id}/avatar`).expect(401);
      assert.equal(res.body.code, 'unauthenticated');
      await t.request.put('/api/v1/me/avatar').attach('file', PNG, { filename: 'a.png', contentType: 'image/png' }).expect(401);
      await t.request.delete('/api/v1/me/avatar').expect(401);
    });

    it('answers 404 for an unknown user and for a user without an avatar', async () => {
      const unknown = await t.request.get(`/api/v1/users/${randomUUID()}/avatar`).set(viewer.auth).expect(404);
      assert.equal(unknown.body.code, 'not_found');
      await avatarOf(viewer.id).expect(404);
    });

    it('lets a write-scoped token set and delete the avatar, and refuses a read-scoped one', async () => {
      const u = await signUp(t);
      const read = await pat(u, 'read');
      assert.equal((await put(read, PNG, 'a.png', 'image/png').expect(403)).body.code, 'forbidden');
      await t.request.delete('/api/v1/me/avatar').set(read).expect(403);
      await assertNoAvatar(u);
      const write = await pat(u, 'write');
      await put(write, JPEG, 'a.jpg', 'image/jpeg').expect(200);
      assert.equal((await avatarOf(u.id).expect(200)).headers['content-type'], 'image/jpeg');
      await t.request.delete('/api/v1/me/avatar').set(write).expect(204);
      await assertNoAvatar(u);
    });
  });

  it('DELETE removes the avatar: 204, avatar_url null, GET 404, blob gone; again is still 204', async () => {
    const u = await signUp(t);
    await put(u, PNG, 'a.png', 'image/png').expect(200);
    assert.equal(await blobExists(u.id), true);
    await t.request.delete('/api/v1/me/avatar').set(u.auth).expect(204);
    await assertNoAvatar(u);
    await t.request.delete('/api/v1/me/avatar').set(u.auth).expect(204);
  });
});
