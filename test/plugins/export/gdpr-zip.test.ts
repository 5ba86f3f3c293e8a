import assert from 'node:assert/strict';
import { strFromU8, unzipSync } from 'fflate';
import { definePlugin } from '../../../core/plugin.ts';
import { signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { builtinPlugins } from '../../../plugins/index.ts';
import { download } from './world.ts';

/** A plugin keeping uploads of a person, as attachments will: its section carries their bytes as files. */
const uploads = definePlugin({
  id: 'uploads-probe',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { gdpr: '^1.0.0' },
  register(ctx) {
    ctx.hooksOf('gdpr.personalData').export.tapPromise('uploads-probe', async (sections, { userId }) => {
      await ctx.blobs.put(`probe/${userId}/1`, Buffer.from('first photo'));
      await ctx.blobs.put(`probe/${userId}/2`, Buffer.from('second photo'));
      const files = [
        { path: 'photo.png', blobKey: `probe/${userId}/1` },
        { path: 'photo.png', blobKey: `probe/${userId}/2` },
        { path: '../escape.txt', blobKey: 'probe/never-stored' },
      ];
      return [...sections, { kind: 'uploads', items: [{ name: 'photo.png' }, { name: 'photo.png' }], files }];
    });
  },
});

describe('gdpr exports through the shared zip writer', () => {
  let t: TestKernel;
  let person: SignedUpUser;

  before(async () => {
    t = await startTestKernel({ plugins: [...builtinPlugins, uploads] });
    await signUp(t, { name: 'Root' });
    person = await signUp(t, { name: 'Petra Person' });
  });
  after(() => t.stop());

  it('holds a JSON file per kind and, beside it, the files a section carries under <kind>/', async () => {
    const id = (await t.request.post('/api/v1/me/data-export').set(person.auth).expect(202)).body.id;
    let status = 'queued';
    for (let i = 0; i < 300 && (status === 'queued' || status === 'running'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await t.request.get(`/api/v1/me/data-exports/${id}`).set(person.auth).expect(200)).body.status;
    }
    assert.equal(status, 'ready');
    const res = await download(t, `/api/v1/me/data-exports/${id}/download`, person.auth).expect(200);
    assert.equal(res.headers['content-type'], 'application/zip');
    const files = unzipSync(new Uint8Array(res.body as Buffer));
    assert.deepEqual(
      (JSON.parse(strFromU8(files['account.json'])) as Array<{ name: string }>).map((a) => a.name),
      ['Petra Person'],
    );
    assert.deepEqual(JSON.parse(strFromU8(files['uploads.json'])), [{ name: 'photo.png' }, { name: 'photo.png' }]);
    assert.equal(strFromU8(files['uploads/photo.png']), 'first photo');
    assert.equal(strFromU8(files['uploads/photo (2).png']), 'second photo', 'two files of one name both kept');
    assert.ok(!Object.keys(files).some((name) => name.includes('escape')), 'a missing blob is left out');
    assert.ok(Object.keys(files).every((name) => !name.split('/').includes('..')));
  });
});
