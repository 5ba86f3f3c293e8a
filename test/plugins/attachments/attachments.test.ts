import { recordedEvents } from '../../../core/testing.ts';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pointers } from '../records/setup.ts';
import { attachmentsWorld, eventually, png, type AttachmentsWorld } from './setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';
import { blobsSince, uploadedBlobs } from '../../fixtures/uploads.ts';

describe('attachments: upload, cell, get, content, delete', () => {
  let w: AttachmentsWorld;
  const blobOf = async (id: string) => (await w.t.db('attachments').where({ id }).first('blob_key'))?.blob_key as string | undefined;
  const exists = (key: string) => w.t.kernel.blobs.exists(key);
  const cell = async (record = w.record, auth = w.member.auth) => (await w.t.request.get(w.url(`/${record}`)).set(auth).expect(200)).body.values.files;

  // The kernel is the file's: what a test counts is its workspace's, or what appeared since it began.
  const attachmentCount = async () => Number((await w.t.db('attachments').where({ workspace_id: w.ws }).count({ n: '*' }))[0].n);
  const newBlobRows = async () => w.t.db('attachment_blobs').whereNotIn('key', blobRowsBefore).pluck('key');
  let blobRowsBefore: string[];
  let uploadsBefore: string[];

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await attachmentsWorld(undefined, kernel());
    blobRowsBefore = await w.t.db('attachment_blobs').pluck('key');
    uploadsBefore = uploadedBlobs(w.t);
  });

  it('uploads a file to the record, appends it to the cell, serves it and fires record.updated with the cell before and after', async () => {
    const bytes = await png(300, 120);
    const res = await w.upload(bytes, 'plan.png', 'image/png');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const a = res.body;
    assert.deepEqual(Object.keys(a).sort(), ['created_at', 'created_by', 'field_id', 'height', 'id', 'mime_type', 'name', 'record_id', 'size', 'thumbnail_url', 'url', 'width']);
    assert.equal(a.mime_type, 'image/png');
    assert.equal(a.size, bytes.length);
    assert.deepEqual([a.width, a.height, a.record_id, a.field_id, a.created_by], [300, 120, w.record, w.fieldId, w.editor.id]);
    assert.equal(a.url, `${w.att(`/${a.id}`)}/content`);
    assert.equal(a.thumbnail_url, `${w.att(`/${a.id}`)}/thumbnail`);
    const item = { id: a.id, name: 'plan.png', mime_type: 'image/png', size: bytes.length, width: 300, height: 120, url: a.url, thumbnail_url: a.thumbnail_url };
    assert.deepEqual(await cell(), [item]);
    assert.deepEqual((await w.t.request.get(w.att(`/${a.id}`)).set(w.member.auth).expect(200)).body, a);

    const second = (await w.upload(Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n'), 'report.pdf', 'text/plain')).body;
    assert.equal(second.mime_type, 'application/pdf');
    assert.deepEqual([second.width, second.height, second.thumbnail_url], [null, null, null]);
    assert.deepEqual((await cell()).map((c: { id: string }) => c.id), [a.id, second.id]);

    const events = await recordedEvents(w.t, { name: 'record.updated', workspace_id: w.ws });
    assert.equal(events.length, 2);
    assert.deepEqual(events[1].payload.before.values.files, [item]);
    assert.deepEqual(events[1].payload.after.values.files.map((c: { id: string }) => c.id), [a.id, second.id]);
    const record = (await w.t.request.get(w.url(`/${w.record}`)).set(w.member.auth).expect(200)).body;
    assert.equal(record.version, 3);
    assert.equal(record.updated_by, w.editor.id);
  });

  it('names the field by api_name or id, and refuses a missing, unknown or ambiguous one', async () => {
    const bytes = Buffer.from('hello');
    assert.equal((await w.upload(bytes, 'a.txt', 'text/plain', { field: 'files' })).status, 201);
    assert.equal((await w.upload(bytes, 'b.txt', 'text/plain', { field: w.fieldId })).status, 201);
    for (const field of ['nope', 'score']) {
      const res = await w.upload(bytes, 'c.txt', 'text/plain', { field });
      assert.equal(res.status, 422);
      assert.deepEqual(pointers(res), ['/field']);
    }
    await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases/${w.db}/fields`).set(w.admin.auth).send({ name: 'Scans', type: 'attachment' }).expect(201);
    const ambiguous = await w.upload(bytes, 'd.txt');
    assert.equal(ambiguous.status, 422);
    assert.deepEqual(pointers(ambiguous), ['/field']);
    assert.equal((await w.upload(bytes, 'e.txt', 'text/plain', { field: 'scans' })).status, 201);
    const extra = await w.t.request.post(w.att()).set(w.editor.auth).field('owner', 'me').attach('file', bytes, { filename: 'f.txt', contentType: 'text/plain' }).expect(422);
    assert.deepEqual(pointers(extra), ['/owner']);
    const noFile = await w.t.request.post(w.att()).set(w.editor.auth).field('field', 'files').expect(422);
    assert.deepEqual(pointers(noFile), ['/file']);
    assert.equal(await attachmentCount(), 3);
    assert.equal((await newBlobRows()).length, 3);
  });

  it('keeps names safe and serves any name in Content-Disposition', async () => {
    const res = await w.upload(Buffer.from('x'), '../../etc/Ŝtrange "name"\u202e.txt', 'text/plain');
    assert.equal(res.status, 201);
    assert.equal(res.body.name, 'Ŝtrange "name".txt');
    const content = await w.t.request.get(res.body.url).set(w.member.auth).expect(200);
    assert.equal(content.headers['content-disposition'], `attachment; filename="_trange _name_.txt"; filename*=UTF-8''%C5%9Ctrange%20%22name%22.txt`);
  });

  it('keeps every file of uploads sent at once to one record', async () => {
    const sent = await Promise.all([0, 1, 2, 3, 4].map((i) => w.upload(Buffer.from(`file ${i}`), `f${i}.txt`)));
    assert.deepEqual(sent.map((r) => r.status), [201, 201, 201, 201, 201]);
    assert.deepEqual(new Set((await cell()).map((c: { id: string }) => c.id)), new Set(sent.map((r) => r.body.id)));
  });

  it('refuses an empty file with 422 at /file: the cell, the version and the store stay as they were', async () => {
    const kept = (await w.upload(Buffer.from('bytes'), 'kept.txt')).body;
    const before = (await w.t.request.get(w.url(`/${w.record}`)).set(w.member.auth).expect(200)).body;
    const empty = await w.upload(Buffer.alloc(0), 'empty.txt');
    assert.equal(empty.status, 422, JSON.stringify(empty.body));
    assert.equal(empty.body.code, 'validation_failed');
    assert.deepEqual(pointers(empty), ['/file']);
    const after = (await w.t.request.get(w.url(`/${w.record}`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual([after.version, after.values.files.map((c: { id: string }) => c.id)], [before.version, [kept.id]]);
    assert.equal(await attachmentCount(), 1);
    assert.deepEqual(await newBlobRows(), [await blobOf(kept.id)]);
    await eventually(async () => blobsSince(w.t, uploadsBefore).length === 1, 'the empty upload to leave the store');
  });

  it('deletes an attachment: out of the cell, its bytes gone after the commit', async () => {
    const a = (await w.upload(Buffer.from('bytes'), 'a.bin')).body;
    const b = (await w.upload(Buffer.from('other'), 'b.bin')).body;
    const key = (await blobOf(a.id))!;
    assert.equal(await exists(key), true);
    await w.t.request.delete(w.att(`/${a.id}`)).set(w.member.auth).expect(403);
    await w.t.request.delete(w.att(`/${a.id}`)).set(w.editor.auth).expect(204);
    await w.t.request.delete(w.att(`/${a.id}`)).set(w.editor.auth).expect(404);
    await w.t.request.get(w.att(`/${a.id}`)).set(w.member.auth).expect(404);
    await w.t.request.get(`${w.att(`/${a.id}`)}/content`).set(w.member.auth).expect(404);
    assert.deepEqual((await cell()).map((c: { id: string }) => c.id), [b.id]);
    assert.equal(await w.t.db('attachment_blobs').where({ key }).first(), undefined);
    await eventually(async () => !(await exists(key)), 'the blob to be deleted');
    const [event] = (await recordedEvents(w.t, { name: 'record.updated', workspace_id: w.ws })).slice(-1);
    assert.deepEqual(event.payload.before.values.files.map((c: { id: string }) => c.id), [a.id, b.id]);
  });

  it('keeps the bytes when the transaction that released them rolls back', async () => {
    const a = (await w.upload(Buffer.from('bytes'), 'a.bin')).body;
    const key = (await blobOf(a.id))!;
    const service = w.t.container.resolverFor('attachments')('attachments.service');
    await assert.rejects(
      w.t.db.transaction(async (trx) => {
        await service.forget(trx, { record_ids: [w.record] });
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await exists(key), true);
    assert.ok(await w.t.db('attachment_blobs').where({ key }).first());
    await w.t.request.get(a.url).set(w.member.auth).expect(200);
  });

  it('writes cells: reorders, removes what is left out, refuses ids of other records or fields', async () => {
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) ids.push((await w.upload(Buffer.from(name), `${name}.txt`)).body.id);
    const patch = (values: object, record = w.record) => w.t.request.patch(w.url(`/${record}`)).set(w.editor.auth).send({ values });
    const reordered = (await patch({ files: [ids[2], ids[0], ids[1]] }).expect(200)).body;
    assert.deepEqual(reordered.values.files.map((x: { id: string }) => x.id), [ids[2], ids[0], ids[1]]);

    const other = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Other' } }).expect(201)).body.id;
    const foreign = (await w.upload(Buffer.from('f'), 'f.txt', 'text/plain', { record: other })).body.id;
    assert.deepEqual(pointers(await patch({ files: [ids[0], foreign] }).expect(422)), ['/values/files/1']);
    assert.deepEqual(pointers(await patch({ files: [randomUUID()] }).expect(422)), ['/values/files/0']);
    assert.deepEqual(pointers(await patch({ files: [ids[0], ids[0]] }).expect(422)), ['/values/files']);
    assert.deepEqual(pointers(await patch({ files: 'x' }).expect(422)), ['/values/files']);
    const created = await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'New', files: [foreign] } }).expect(422);
    assert.deepEqual(pointers(created), ['/values/files/0']);
    assert.deepEqual((await cell()).map((x: { id: string }) => x.id), [ids[2], ids[0], ids[1]], 'refused writes change nothing');

    const keyOf1 = (await blobOf(ids[1]))!;
    assert.deepEqual((await patch({ files: [ids[0]] }).expect(200)).body.values.files.map((x: { id: string }) => x.id), [ids[0]]);
    assert.equal(await blobOf(ids[1]), undefined);
    await eventually(async () => !(await exists(keyOf1)), 'the left-out blob to be deleted');
    assert.deepEqual((await patch({ files: null }).expect(200)).body.values.files, []);
    assert.deepEqual((await patch({ files: [] }).expect(200)).body.values.files, []);
    assert.equal(Number((await w.t.db('attachments').where({ record_id: w.record }).count({ n: '*' }))[0].n), 0);
    assert.deepEqual((await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Empty', files: [] } }).expect(201)).body.values.files, []);
  });

  it('writes cells in bulk patches, reporting the record whose cell names another record\'s file', async () => {
    const other = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Other' } }).expect(201)).body.id;
    const mine = [(await w.upload(Buffer.from('1'), '1.txt')).body.id, (await w.upload(Buffer.from('2'), '2.txt')).body.id];
    const theirs = (await w.upload(Buffer.from('3'), '3.txt', 'text/plain', { record: other })).body.id;
    const res = await w.t.request.patch(w.url()).set(w.editor.auth).send({ records: [{ id: w.record, values: { files: [mine[1], mine[0]] } }, { id: other, values: { files: [mine[0]] } }] }).expect(200);
    assert.deepEqual(res.body.data.map((r: { id: string }) => r.id), [w.record]);
    assert.deepEqual(res.body.errors.map((e: { id: string; code: string }) => [e.id, e.code]), [[other, 'validation_failed']]);
    assert.deepEqual((await cell()).map((c: { id: string }) => c.id), [mine[1], mine[0]]);
    assert.deepEqual((await cell(other)).map((c: { id: string }) => c.id), [theirs]);
  });

  it('filters on is_empty and is_not_empty', async () => {
    const other = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Bare' } }).expect(201)).body.id;
    await w.upload(Buffer.from('x'), 'x.txt');
    const query = async (op: string) => (await w.t.request.post(w.url('/query')).set(w.member.auth).send({ filter: { field: 'files', op } }).expect(200)).body.data.map((r: { id: string }) => r.id);
    assert.deepEqual(await query('is_not_empty'), [w.record]);
    assert.deepEqual(await query('is_empty'), [other]);
    await w.t.request.post(w.url('/query')).set(w.member.auth).send({ filter: { field: 'files', op: 'contains', value: 'x' } }).expect(422);
  });

  it('answers 404 for records in the trash, other records, deleted fields and other workspaces; members read but do not write', async () => {
    const a = (await w.upload(Buffer.from('x'), 'x.txt')).body;
    const other = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Other' } }).expect(201)).body.id;
    await w.t.request.get(w.att(`/${a.id}`, other)).set(w.member.auth).expect(404);
    await w.t.request.get(w.att(`/${a.id}`)).set(w.outsider.auth).expect(404);
    await w.t.request.get(`${w.att(`/${a.id}`)}/content`).set(w.outsider.auth).expect(404);
    assert.equal((await w.upload(Buffer.from('x'), 'y.txt', 'text/plain', { auth: w.member.auth })).status, 403);
    assert.equal((await w.upload(Buffer.from('x'), 'y.txt', 'text/plain', { auth: w.outsider.auth })).status, 404);
    assert.equal((await w.upload(Buffer.from('x'), 'y.txt', 'text/plain', { record: randomUUID() })).status, 404);
    await w.t.request.get(w.att(`/${randomUUID()}`)).set(w.member.auth).expect(404);

    await w.t.request.delete(`/api/v1/workspaces/${w.ws}/databases/${w.db}/fields/files`).set(w.admin.auth).expect(200);
    await w.t.request.get(w.att(`/${a.id}`)).set(w.member.auth).expect(404);
    await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases/${w.db}/fields/files/restore`).set(w.admin.auth).expect(200);
    await w.t.request.get(w.att(`/${a.id}`)).set(w.member.auth).expect(200);

    await w.t.request.delete(w.url(`/${w.record}`)).set(w.editor.auth).expect(204);
    await w.t.request.get(w.att(`/${a.id}`)).set(w.member.auth).expect(404);
    assert.equal((await w.upload(Buffer.from('x'), 'z.txt')).status, 404);
    assert.equal((await newBlobRows()).length, 1, 'refused uploads leave no blob row');
  });
});
