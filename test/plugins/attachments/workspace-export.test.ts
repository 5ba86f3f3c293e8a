import assert from 'node:assert/strict';
import { strFromU8, unzipSync } from 'fflate';
import { waitUntil } from '../../fixtures/wait.ts';
import { attachmentsWorld, binary, png, type AttachmentsWorld } from './setup.ts';

describe('attachments in a workspace export', () => {
  let w: AttachmentsWorld;
  before(async () => (w = await attachmentsWorld()));
  after(() => w.t.stop());

  it('puts every file of a cell in the zip under its database, record and attachment, with an index naming each', async () => {
    const image = await png(40, 30);
    const photo = (await w.upload(image, 'photo: 1.png', 'image/png')).body;
    const notes = (await w.upload(Buffer.from('minutes, kept as written\n'), 'notes.txt', 'text/plain')).body;
    const gone = (await w.upload(Buffer.from('deleted before the export'), 'old.txt', 'text/plain')).body;
    await w.t.request.delete(w.att(`/${gone.id}`)).set(w.editor.auth).expect(204);

    const exportsUrl = `/api/v1/workspaces/${w.ws}/exports`;
    const id = (await w.t.request.post(exportsUrl).set(w.admin.auth).expect(202)).body.id;
    const done = await waitUntil('the workspace export', async () => {
      const res = await w.t.request.get(`${exportsUrl}/${id}`).set(w.admin.auth).expect(200);
      return ['succeeded', 'failed'].includes(res.body.status) && res.body;
    });
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    const zip = await w.t.request.get(done.download_url).set(w.admin.auth).buffer(true).parse(binary).expect(200);
    const files = unzipSync(new Uint8Array(zip.body as Buffer));

    const index = JSON.parse(strFromU8(files['attachments/index.json'])) as Array<Record<string, unknown>>;
    assert.deepEqual(index.map((a) => [a.id, a.record_id, a.field_id, a.name, a.mime_type, a.size]), [
      [photo.id, w.record, w.fieldId, 'photo: 1.png', 'image/png', image.length],
      [notes.id, w.record, w.fieldId, 'notes.txt', 'application/octet-stream', 25],
    ]);
    assert.deepEqual(Buffer.from(files[index[0].path as string]), image);
    assert.equal(index[0].path, `attachments/${w.db}/${w.record}/${photo.id}/photo_ 1.png`);
    assert.equal(strFromU8(files[index[1].path as string]), 'minutes, kept as written\n');
    assert.ok(!Object.keys(files).some((path) => path.includes(gone.id)), 'a deleted attachment is not exported');
  });
});
