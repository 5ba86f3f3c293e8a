import assert from 'node:assert/strict';
import { memberExport } from '../documents/member-export.ts';
import { eventually, filesWorld, images, type FilesWorld } from './setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

const showing = (...fileIds: string[]) => ({ type: 'doc', content: fileIds.map((id) => ({ type: 'image', attrs: { file_id: id } })) });

describe('files: a member’s uploads in GDPR exports and erasures', () => {
  let w: FilesWorld;
  let png: Buffer;
  const api = (p: string) => `/api/v1/workspaces/${w.ws}${p}`;
  const upload = async (name: string) =>
    (await w.t.request.post(api('/files')).set(w.editor.auth).attach('file', png, { filename: name, contentType: 'image/png' }).expect(201)).body as { id: string; url: string };
  const blobKey = async (id: string) => (await w.t.db('files').where({ id }).first('blob_key')).blob_key as string;
  const newDocument = async (title: string) => (await w.t.request.post(api('/documents')).set(w.creator.auth).send({ title, space_id: w.space }).expect(201)).body.id as string;
  const write = (doc: string, content: object, version: number) => w.t.request.put(api(`/documents/${doc}/content`)).set(w.editor.auth).send({ content, version }).expect(200);

  before(async () => {
    png = await images.png();
  });
  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await filesWorld({}, kernel());
  });

  it('exports them, then deletes those nothing shows and keeps, unattributed, those a document or description shows', async () => {
    const [inDocument, inDescription, never, droppedFromDocument, inDeletedDocument, revoked] = [
      await upload('doc.png'),
      await upload('desc.png'),
      await upload('never.png'),
      await upload('dropped.png'),
      await upload('deleted-doc.png'),
      await upload('revoked.png'),
    ];
    const byAdmin = (await w.t.request.post(api('/files')).set(w.admin.auth).attach('file', png, { filename: 'admin.png', contentType: 'image/png' }).expect(201)).body;

    const doc = await newDocument('Gallery');
    await write(doc, showing(inDocument.id, droppedFromDocument.id), 0);
    await write(doc, showing(inDocument.id), 1);
    const doomed = await newDocument('Doomed');
    await write(doomed, showing(inDeletedDocument.id), 0);
    await w.t.request.delete(api(`/documents/${doomed}`)).set(w.creator.auth).expect(204);
    const db = (await w.t.request.post(api('/databases')).set(w.admin.auth).send({ name: 'D', space_id: w.space }).expect(201)).body.id;
    const record = (await w.t.request.post(api(`/databases/${db}/records`)).set(w.editor.auth).send({ values: {} }).expect(201)).body.id;
    await w.t.request.put(api(`/databases/${db}/records/${record}/description`)).set(w.editor.auth).send({ content: showing(inDescription.id), version: 0 }).expect(200);
    await w.t.request.post(api(`/files/${revoked.id}/revoke`)).set(w.editor.auth).expect(200);

    const exported = await memberExport(w.t, w.ws, w.admin, w.editor.id);
    const listed = exported['files.json'] as Array<{ id: string; name: string; created_by: string }>;
    assert.deepEqual(listed.map((f) => f.name), ['doc.png', 'desc.png', 'never.png', 'dropped.png', 'deleted-doc.png']);
    assert.ok(listed.every((f) => f.created_by === w.editor.id));

    const goneKeys = await Promise.all([never, droppedFromDocument, inDeletedDocument].map((f) => blobKey(f.id)));
    const receipt = (await w.t.request.post(api(`/members/${w.editor.id}/erase`)).set(w.admin.auth).send({ confirm: w.editor.email }).expect(200)).body;
    const report = receipt.reports.find((r: { kind: string }) => r.kind === 'files');
    assert.equal(report.deleted, 3);
    assert.equal(report.pseudonymised, 3, 'the two kept and the revoked one’s row');
    assert.deepEqual(report.retained.map((r: { reason: string }) => r.reason), ['shown in documents of the workspace']);
    assert.ok(!JSON.stringify(receipt).includes(w.editor.email) && !JSON.stringify(receipt).includes('doc.png'));

    for (const kept of [inDocument, inDescription]) {
      const file = (await w.t.request.get(api(`/files/${kept.id}`)).set(w.admin.auth).expect(200)).body;
      assert.equal(file.created_by, null);
      await w.t.request.get(kept.url).set(w.admin.auth).expect(200);
    }
    for (const gone of [never, droppedFromDocument, inDeletedDocument]) await w.t.request.get(api(`/files/${gone.id}`)).set(w.admin.auth).expect(404);
    for (const key of goneKeys) await eventually(async () => !(await w.t.kernel.blobs.exists(key)), `${key} to be deleted`);
    assert.deepEqual(await w.t.db('files').where({ id: revoked.id }).first('created_by'), { created_by: null });
    assert.equal((await w.t.request.get(api(`/files/${byAdmin.id}`)).set(w.admin.auth).expect(200)).body.created_by, w.admin.id);
  });

  it('forgets what descriptions showed when their database is deleted', async () => {
    const shown = await upload('shown.png');
    const db = (await w.t.request.post(api('/databases')).set(w.admin.auth).send({ name: 'D', space_id: w.space }).expect(201)).body.id;
    const record = (await w.t.request.post(api(`/databases/${db}/records`)).set(w.editor.auth).send({ values: {} }).expect(201)).body.id;
    await w.t.request.put(api(`/databases/${db}/records/${record}/description`)).set(w.editor.auth).send({ content: showing(shown.id), version: 0 }).expect(200);
    assert.equal((await w.t.db('files_uses').where({ file_id: shown.id })).length, 1);
    await w.t.request.delete(api(`/databases/${db}`)).set(w.admin.auth).send({ confirm: 'D' }).expect(204);
    assert.deepEqual(await w.t.db('files_uses').where({ file_id: shown.id }), []);
  });
});
