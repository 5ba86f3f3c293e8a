import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { attachmentsWorld, binary, eventually, png, type AttachmentsWorld } from './setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

describe('attachments: in packs with the sample records', () => {
  let w: AttachmentsWorld;
  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await attachmentsWorld(undefined, kernel());
  });
  const install = async (pack: unknown) => {
    const space = (await w.t.db('databases').where({ id: w.db }).first('space_id')).space_id;
    return w.t.request.post(`/api/v1/workspaces/${w.ws}/packs/install`).set(w.admin.auth).send({ pack, space_id: space });
  };
  const exportPack = (body: object) => w.t.request.post(`/api/v1/workspaces/${w.ws}/packs/export`).set(w.admin.auth).send(body);

  it('carry their bytes in base64 and come back, in order, as attachments of the installed records', async () => {
    const image = await png(64, 32);
    const a = (await w.upload(image, 'logo.png', 'image/png')).body;
    const b = (await w.upload(Buffer.from('notes'), 'notes.txt', 'text/plain')).body;
    assert.equal((await exportPack({ database_ids: [w.db] }).expect(200)).body.resources.attachment, undefined, 'no sample records, no attachments');
    const pack = (await exportPack({ database_ids: [w.db], include_records: true }).expect(200)).body;
    const items = pack.resources.attachment;
    assert.deepEqual(items.map((i: { name: string; field: string }) => [i.name, i.field]), [['logo.png', 'files'], ['notes.txt', 'files']]);
    assert.deepEqual(Buffer.from(items[0].data, 'base64'), image);
    assert.equal(items[0].record, pack.resources.record[0].ref);

    const done = await install(pack);
    assert.equal(done.status, 201, JSON.stringify(done.body));
    const installed = done.body;
    const [database] = installed.created.database;
    const [record] = installed.created.record;
    const url = `/api/v1/workspaces/${w.ws}/databases/${database.id}/records/${record.id}`;
    const cell = (await w.t.request.get(url).set(w.member.auth).expect(200)).body.values.files;
    assert.deepEqual(cell.map((c: { name: string; mime_type: string; width: number | null }) => [c.name, c.mime_type, c.width]), [['logo.png', 'image/png', 64], ['notes.txt', 'application/octet-stream', null]]);
    assert.notEqual(cell[0].id, a.id);
    assert.notEqual(cell[1].id, b.id);
    const bytes = await w.t.request.get(cell[0].url).set(w.member.auth).buffer(true).parse(binary).expect(200);
    assert.deepEqual(bytes.body, image);

    const keys = (await w.t.db('attachments').where({ database_id: database.id }).pluck('blob_key')) as string[];
    const removed = (await w.t.request.delete(`/api/v1/workspaces/${w.ws}/packs/installs/${installed.install_id}`).set(w.admin.auth).expect(200)).body;
    assert.deepEqual(removed.kept, []);
    assert.equal(Number((await w.t.db('attachments').where({ database_id: database.id }).count({ n: '*' }))[0].n), 0);
    await eventually(async () => !(await Promise.all(keys.map((k) => w.t.kernel.blobs.exists(k)))).some(Boolean), 'the installed bytes to go with the uninstall');
  });

  it('refuses a pack whose attachments hold more than 3 MiB, and an attachment that names no attachment field', async () => {
    await w.upload(Buffer.alloc(3 * 1024 * 1024 + 1, 1), 'big.bin');
    const refused = await exportPack({ database_ids: [w.db], include_records: true }).expect(422);
    assert.equal(refused.body.code, 'limit_exceeded');
    await w.t.request.delete(w.att(`/${(await w.t.db('attachments').where({ workspace_id: w.ws }).first('id')).id}`)).set(w.editor.auth).expect(204);
    await w.upload(Buffer.from('x'), 'x.txt');
    await w.upload(Buffer.from('y'), 'y.txt');
    const pack = (await exportPack({ database_ids: [w.db], include_records: true }).expect(200)).body;
    pack.resources.attachment[1].field = 'score';
    const res = await install(pack);
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/pack/resources/attachment/1/field']);
    const installedBytes = path.join(w.t.kernel.config.dataDir, 'blobs', 'attachments');
    await eventually(async () => !fs.existsSync(installedBytes) || fs.readdirSync(installedBytes).length === 0, 'the bytes of the rolled-back install to go');
  });
});
