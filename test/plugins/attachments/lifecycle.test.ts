import assert from 'node:assert/strict';
import { attachmentsWorld, binary, eventually, type AttachmentsWorld } from './setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

describe('attachments: duplicates, trash, purge and deletions', () => {
  let w: AttachmentsWorld;
  const keyOf = async (id: string) => (await w.t.db('attachments').where({ id }).first('blob_key'))?.blob_key as string | undefined;
  const exists = (key: string) => w.t.kernel.blobs.exists(key);
  const gone = (key: string) => eventually(async () => !(await exists(key)) && !(await w.t.db('attachment_blobs').where({ key }).first()), `blob ${key} to be deleted`);
  const record = async (id: string) => (await w.t.request.get(w.url(`/${id}`)).set(w.member.auth).expect(200)).body;

  // The kernel is the file's: a test counts its workspace's attachments, and the blob rows made since it began.
  const attachmentCount = async () => Number((await w.t.db('attachments').where({ workspace_id: w.ws }).count({ n: '*' }))[0].n);
  let blobRowsBefore: string[];

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await attachmentsWorld(undefined, kernel());
    blobRowsBefore = await w.t.db('attachment_blobs').pluck('key');
  });

  it('duplicating a record copies its cell by reference: the bytes once, kept until the last attachment naming them goes', async () => {
    const a = (await w.upload(Buffer.from('shared bytes'), 'shared.txt', 'text/plain')).body;
    const copy = (await w.t.request.post(w.url(`/${w.record}/duplicate`)).set(w.editor.auth).expect(201)).body;
    const [copied] = copy.values.files;
    assert.notEqual(copied.id, a.id);
    assert.deepEqual({ ...copied, id: a.id, url: a.url }, (await record(w.record)).values.files[0]);
    assert.equal(copied.url, `${w.att(`/${copied.id}`, copy.id)}/content`);
    const key = (await keyOf(a.id))!;
    assert.equal(await keyOf(copied.id), key, 'one blob for both');
    assert.equal((await w.t.db('attachment_blobs').whereNotIn('key', blobRowsBefore).pluck('key')).length, 1);
    assert.equal((await w.t.request.get(copied.url).set(w.member.auth).buffer(true).parse(binary).expect(200)).body.toString(), 'shared bytes');

    await w.t.request.delete(w.att(`/${copied.id}`, copy.id)).set(w.editor.auth).expect(204);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await exists(key), true, "the original's bytes stay");
    assert.equal((await w.t.request.get(a.url).set(w.member.auth).buffer(true).parse(binary).expect(200)).body.toString(), 'shared bytes');
    await w.t.request.delete(w.att(`/${a.id}`)).set(w.editor.auth).expect(204);
    await gone(key);
  });

  it('keeps attachments through trash and restore, and removes them with the purge', async () => {
    const a = (await w.upload(Buffer.from('keep me'), 'k.txt', 'text/plain')).body;
    const key = (await keyOf(a.id))!;
    await w.t.request.delete(w.url(`/${w.record}`)).set(w.editor.auth).expect(204);
    await w.t.request.get(a.url).set(w.member.auth).expect(404);
    await w.t.request.post(w.url('/restore')).set(w.editor.auth).send({ ids: [w.record] }).expect(200);
    assert.deepEqual((await record(w.record)).values.files.map((f: { id: string }) => f.id), [a.id]);
    assert.equal((await w.t.request.get(a.url).set(w.member.auth).buffer(true).parse(binary).expect(200)).body.toString(), 'keep me');

    await w.t.request.delete(w.url(`/${w.record}`)).set(w.editor.auth).expect(204);
    await w.t.db(w.table).where({ id: w.record }).update({ deleted_at: '2026-01-01T00:00:00Z' });
    await w.t.container.resolverFor('records')('records.trash').purge(new Date('2026-03-01T00:00:00Z'));
    assert.equal(await w.t.db('attachments').where({ id: a.id }).first(), undefined);
    await gone(key);
  });

  it('a duplicate keeps the bytes when its source is purged', async () => {
    const a = (await w.upload(Buffer.from('both'), 'b.txt', 'text/plain')).body;
    const copy = (await w.t.request.post(w.url(`/${w.record}/duplicate`)).set(w.editor.auth).expect(201)).body;
    await w.t.request.delete(w.url(`/${w.record}`)).set(w.editor.auth).expect(204);
    await w.t.db(w.table).where({ id: w.record }).update({ deleted_at: '2026-01-01T00:00:00Z' });
    await w.t.container.resolverFor('records')('records.trash').purge(new Date('2026-03-01T00:00:00Z'));
    assert.equal(await w.t.db('attachments').where({ id: a.id }).first(), undefined);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await w.t.request.get(copy.values.files[0].url).set(w.member.auth).buffer(true).parse(binary).expect(200)).body.toString(), 'both');
  });

  it('lists a database\'s files with their blob keys, for exports', async () => {
    const a = (await w.upload(Buffer.from('one'), 'one.txt')).body;
    const b = (await w.upload(Buffer.from('second'), 'two.txt')).body;
    const service = w.t.container.resolverFor('attachments')('attachments.service');
    const files = await service.filesOf(w.t.db, { database_id: w.db });
    assert.deepEqual(files.map(({ blob_key: _k, ...f }) => f), [
      { id: a.id, database_id: w.db, record_id: w.record, field_id: w.fieldId, name: 'one.txt', mime_type: 'application/octet-stream', size: 3 },
      { id: b.id, database_id: w.db, record_id: w.record, field_id: w.fieldId, name: 'two.txt', mime_type: 'application/octet-stream', size: 6 },
    ]);
    assert.equal((await w.t.kernel.blobs.read(files[1].blob_key))!.toString(), 'second');
  });

  it('removes the attachments and their bytes with their database', async () => {
    const a = (await w.upload(Buffer.from('db'), 'd.txt', 'text/plain')).body;
    const key = (await keyOf(a.id))!;
    await w.t.request.delete(`/api/v1/workspaces/${w.ws}/databases/${w.db}`).set(w.admin.auth).send({ confirm: 'D' }).expect(204);
    assert.equal(await attachmentCount(), 0);
    await gone(key);
  });

  it('removes the attachments and their bytes with their workspace', async () => {
    const a = (await w.upload(Buffer.from('ws'), 'w.txt', 'text/plain')).body;
    const copy = (await w.t.request.post(w.url(`/${w.record}/duplicate`)).set(w.editor.auth).expect(201)).body;
    assert.equal(copy.values.files.length, 1);
    const key = (await keyOf(a.id))!;
    await w.t.request.delete(`/api/v1/workspaces/${w.ws}`).set(w.admin.auth).expect(204);
    assert.equal(await attachmentCount(), 0);
    await gone(key);
  });
});
