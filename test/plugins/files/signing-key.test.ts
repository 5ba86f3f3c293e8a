import assert from 'node:assert/strict';
import { createWorkspace, newTestStorage, signUp, startTestKernel } from '../../../core/testing.ts';
import { images } from './setup.ts';

describe('files: the signing key of signed URLs', function () {
  this.timeout(60_000);

  it('is made once and kept in the database: another instance (here, a restart) signs alike', async () => {
    const storage = newTestStorage();
    const first = await startTestKernel({ storage });
    let fileId: string;
    let token: string;
    const expiresAt = Math.floor(Date.now() / 1000) + 600;
    try {
      const admin = await signUp(first);
      const ws = (await createWorkspace(first, admin)).id;
      fileId = (await first.request.post(`/api/v1/workspaces/${ws}/files`).set(admin.auth).attach('file', await images.png(), { filename: 'a.png', contentType: 'image/png' }).expect(201)).body.id;
      token = await first.container.resolverFor('files')('files.service').tokenFor(fileId, expiresAt);
      await first.request.get(`/api/v1/files/signed/${token}`).expect(200);
    } finally {
      await first.stop({ keep: true });
    }
    const second = await startTestKernel({ storage });
    try {
      assert.equal(await second.container.resolverFor('files')('files.service').tokenFor(fileId, expiresAt), token);
      const keys = await second.db('files_keys').select('name', 'secret');
      assert.equal(keys.length, 1);
      assert.match(keys[0].secret, /^[0-9a-f]{64}$/);
    } finally {
      await second.stop();
    }
  });

  it('is the signingKey option when given, and then no key is stored', async () => {
    const t = await startTestKernel({ config: { plugins: { files: { options: { signingKey: 'a-long-enough-signing-key-from-the-env!' } } } } });
    try {
      const admin = await signUp(t);
      const ws = (await createWorkspace(t, admin)).id;
      const id = (await t.request.post(`/api/v1/workspaces/${ws}/files`).set(admin.auth).attach('file', await images.png(), { filename: 'a.png', contentType: 'image/png' }).expect(201)).body.id;
      const url = (await t.request.post(`/api/v1/workspaces/${ws}/files/${id}/signed-url`).set(admin.auth).send({}).expect(201)).body.url;
      await t.request.get(new URL(url).pathname).expect(200);
      assert.deepEqual(await t.db('files_keys').select('name'), []);
    } finally {
      await t.stop();
    }
  });

  it('refuses a signingKey shorter than 32 characters at start-up', async () => {
    await assert.rejects(startTestKernel({ config: { plugins: { files: { options: { signingKey: 'short' } } } } }), /files.*signingKey/s);
  });
});
