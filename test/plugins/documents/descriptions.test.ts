import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { DocumentFileHooks } from '../../../plugins/documents/public.ts';
import { recordsWorld, pointers, type RecordsWorld } from '../records/setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

const doc = (t: string, ...extra: unknown[]) => ({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: t }, ...extra] }] });

describe('documents: record descriptions', () => {
  let w: RecordsWorld;
  let record: string;
  const path = (id = record) => w.url(`/${id}/description`);
  const put = (body: object, auth = w.editor.auth, id = record) => w.t.request.put(path(id)).set(auth).send(body);
  const stored = () => w.t.db('document_descriptions').where({ record_id: record }).first();

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
    record = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Task' } }).expect(201)).body.id;
  });

  it('reads as version 0 until written, then each write adds one', async () => {
    const blank = (await w.t.request.get(path()).set(w.member.auth).expect(200)).body;
    assert.deepEqual(blank, { record_id: record, content: null, version: 0, updated_at: null, updated_by: null });
    const first = (await put({ content: doc('Hello'), version: 0 }).expect(200)).body;
    assert.equal(first.version, 1);
    assert.equal(first.updated_by, w.editor.id);
    assert.deepEqual(first.content, doc('Hello'));
    const second = (await put({ content: doc('Hello again'), version: 1 }, w.admin.auth).expect(200)).body;
    assert.equal(second.version, 2);
    assert.equal(second.updated_by, w.admin.id);
    assert.deepEqual((await w.t.request.get(path()).set(w.member.auth).expect(200)).body, second);
    assert.equal((await stored()).text, 'Hello again');
    const events = await w.t.db('kernel_events').where({ name: 'description.updated', workspace_id: w.ws }).orderBy('id').select('payload');
    assert.deepEqual(events.map((e) => e.payload.description.version), [1, 2]);
    assert.equal(events[0].payload.record_id, record);
  });

  it('refuses a stale version with the current one and its writer, changing nothing', async () => {
    await put({ content: doc('One'), version: 0 }).expect(200);
    for (const version of [0, 2, 7]) {
      const res = await put({ content: doc('Lost'), version }, w.admin.auth).expect(409);
      assert.equal(res.body.code, 'version_conflict');
      assert.equal(res.body.current_version, 1);
      assert.equal(res.body.updated_by, w.editor.id);
    }
    assert.equal((await stored()).text, 'One');
    assert.equal((await stored()).version, 1);
  });

  it('lets exactly one of two writers with the same version through', async () => {
    for (const version of [0, 1]) {
      const results = await Promise.all([put({ content: doc('A'), version }), put({ content: doc('B'), version }, w.admin.auth)]);
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 409]);
      const winner = results.find((r) => r.status === 200)!;
      assert.equal((await stored()).text, winner.body.content.content[0].content[0].text);
      assert.equal((await stored()).version, version + 1);
    }
  });

  it('lets editors write and members read; others get 404; a record in the trash is gone', async () => {
    const res = await put({ content: doc('No'), version: 0 }, w.member.auth).expect(403);
    assert.equal(res.body.code, 'forbidden');
    await w.t.request.get(path()).set(w.outsider.auth).expect(404);
    await put({ content: doc('No'), version: 0 }, w.outsider.auth).expect(404);
    await w.t.request.get(path(randomUUID())).set(w.member.auth).expect(404);
    await put({ content: doc('Yes'), version: 0 }).expect(200);
    await w.t.request.delete(w.url(`/${record}`)).set(w.editor.auth).expect(204);
    await w.t.request.get(path()).set(w.member.auth).expect(404);
    await put({ content: doc('Again'), version: 1 }).expect(404);
  });

  it('refuses invalid rich text, outsiders mentioned, unknown files and unknown members with pointers', async () => {
    const link = { type: 'doc', content: [{ type: 'text', text: 'x', marks: [{ type: 'link', attrs: { href: 'javascript:alert(1)' } }] }] };
    assert.deepEqual(pointers(await put({ content: link, version: 0 }).expect(422)), ['/content/content/0/marks/0/attrs/href']);
    const outsider = doc('Hi ', { type: 'mention', attrs: { user_id: w.outsider.id } });
    assert.deepEqual(pointers(await put({ content: outsider, version: 0 }).expect(422)), ['/content/content/0/content/1/attrs/user_id']);
    const image = { type: 'doc', content: [{ type: 'image', attrs: { file_id: randomUUID() } }] };
    assert.deepEqual(pointers(await put({ content: image, version: 0 }).expect(422)), ['/content/content/0/attrs/file_id']);
    assert.equal((await put({ content: doc('x'), version: 0, id: randomUUID() }).expect(422)).body.code, 'validation_failed');
    await put({ content: doc('x') }).expect(422);
    assert.equal(await stored(), undefined);
    const member = doc('Hi ', { type: 'mention', attrs: { user_id: w.member.id } });
    assert.equal((await put({ content: member, version: 0 }).expect(200)).body.version, 1);
    assert.equal((await stored()).text, 'Hi @Mia');
  });

  it('refuses more than 1 MB of JSON with 413', async () => {
    const big = doc('x'.repeat(1024 * 1024));
    const res = await put({ content: big, version: 0 }).expect(413);
    assert.equal(res.body.code, 'payload_too_large');
    assert.equal(await stored(), undefined);
  });

  it('goes with its record into the copy of a duplicate, as version 1 by the duplicator', async () => {
    await put({ content: doc('Copied'), version: 0 }).expect(200);
    await put({ content: doc('Copied v2'), version: 1 }).expect(200);
    const copy = (await w.t.request.post(w.url(`/${record}/duplicate`)).set(w.admin.auth).expect(201)).body;
    const cloned = (await w.t.request.get(path(copy.id)).set(w.member.auth).expect(200)).body;
    assert.deepEqual(cloned.content, doc('Copied v2'));
    assert.equal(cloned.version, 1);
    assert.equal(cloned.updated_by, w.admin.id);
    const plain = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Bare' } }).expect(201)).body.id;
    const bare = (await w.t.request.post(w.url(`/${plain}/duplicate`)).set(w.admin.auth).expect(201)).body;
    assert.equal((await w.t.request.get(path(bare.id)).set(w.member.auth).expect(200)).body.version, 0);
  });

  it('goes when its record is purged from the trash, and with its database', async () => {
    await put({ content: doc('Doomed'), version: 0 }).expect(200);
    await w.t.request.delete(w.url(`/${record}`)).set(w.editor.auth).expect(204);
    await w.t.db(w.table).where({ id: record }).update({ deleted_at: '2026-01-01T00:00:00Z' });
    await w.t.container.resolverFor('records')('records.trash').purge(new Date('2026-03-01T00:00:00Z'));
    assert.equal(await stored(), undefined);
    const other = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Other' } }).expect(201)).body.id;
    await put({ content: doc('Kept?'), version: 0 }, w.editor.auth, other).expect(200);
    await w.t.request.delete(`/api/v1/workspaces/${w.ws}/databases/${w.db}`).set(w.admin.auth).send({ confirm: 'D' }).expect(204);
    assert.equal(await w.t.db('document_descriptions').where({ database_id: w.db }).first(), undefined);
  });

  it('takes images of files the plugin keeping files knows in the workspace (documents.files)', async () => {
    const known = randomUUID();
    const asked: Array<{ workspaceId: string; fileIds: string[] }> = [];
    const files = w.t.kernel.pluginHooks.get('documents.files')!.hooks as DocumentFileHooks;
    files.known.tapPromise('test', async ({ workspaceId, fileIds }) => {
      asked.push({ workspaceId, fileIds });
      return new Set(fileIds.filter((id) => id === known));
    });
    const image = (id: string) => ({ type: 'image', attrs: { file_id: id } });
    const unknown = randomUUID();
    const refused = await put({ content: { type: 'doc', content: [image(known), image(unknown)] }, version: 0 }).expect(422);
    assert.deepEqual(pointers(refused), ['/content/content/1/attrs/file_id']);
    const ok = await put({ content: { type: 'doc', content: [image(known), { type: 'paragraph', content: [{ type: 'text', text: 'Caption' }] }] }, version: 0 }).expect(200);
    assert.equal(ok.body.version, 1);
    assert.equal((await stored()).text, 'Caption');
    assert.deepEqual(asked.map((a) => a.workspaceId), [w.ws, w.ws]);
  });
});
