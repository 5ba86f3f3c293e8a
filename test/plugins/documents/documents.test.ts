import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { signUp, type SignedUpUser } from '../../../core/testing.ts';
import { recordsWorld, pointers, type RecordsWorld } from '../records/setup.ts';
import { memberExport } from './member-export.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

const doc = (t: string) => ({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: t }] }] });

describe('documents: standalone documents', () => {
  let w: RecordsWorld;
  let space: string;
  let other: string;
  let guest: SignedUpUser;
  let creator: SignedUpUser;
  const api = (p: string) => `/api/v1/workspaces/${w.ws}${p}`;
  const create = (body: object, auth = creator.auth) => w.t.request.post(api('/documents')).set(auth).send(body);
  const list = async (auth: Record<string, string>, query = '') => (await w.t.request.get(api(`/documents${query}`)).set(auth).expect(200)).body;

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
    space = (await w.t.request.post(api('/spaces')).set(w.admin.auth).send({ name: 'Docs' }).expect(201)).body.id;
    other = (await w.t.request.post(api('/spaces')).set(w.admin.auth).send({ name: 'Hidden' }).expect(201)).body.id;
    guest = await signUp(w.t, { name: 'Gus' });
    creator = await signUp(w.t, { name: 'Cleo' });
    await w.t.db('workspace_members').insert([
      { workspace_id: w.ws, user_id: guest.id, role: 'guest', space_ids: [space] },
      { workspace_id: w.ws, user_id: creator.id, role: 'creator' },
    ]);
  });

  it('creates at version 0 in a space or a folder of it, and lists what each caller can see', async () => {
    const a = (await create({ title: ' Handbook ', space_id: space }).expect(201)).body;
    assert.equal(a.title, 'Handbook');
    assert.equal(a.version, 0);
    assert.equal(a.folder_id, null);
    assert.equal(a.workspace_id, w.ws);
    assert.equal(a.created_by, creator.id);
    assert.deepEqual(Object.keys(a).sort(), ['created_at', 'created_by', 'folder_id', 'id', 'space_id', 'title', 'updated_at', 'updated_by', 'version', 'workspace_id']);
    const folder = (await w.t.request.post(api(`/spaces/${space}/folders`)).set(w.admin.auth).send({ name: 'F' }).expect(201)).body.id;
    const b = (await create({ title: 'In folder', space_id: space, folder_id: folder }).expect(201)).body;
    assert.equal(b.folder_id, folder);
    const hidden = (await create({ title: 'Secret', space_id: other }).expect(201)).body;
    assert.deepEqual((await list(w.member.auth)).data.map((d: { id: string }) => d.id), [hidden.id, b.id, a.id]);
    assert.deepEqual((await list(guest.auth)).data.map((d: { id: string }) => d.id), [b.id, a.id]);
    assert.deepEqual((await list(w.member.auth, `?space_id=${other}`)).data.map((d: { id: string }) => d.id), [hidden.id]);
    const page = await list(w.member.auth, '?limit=2');
    assert.equal(page.data.length, 2);
    assert.deepEqual((await list(w.member.auth, `?limit=2&cursor=${page.next_cursor}`)).data.map((d: { id: string }) => d.id), [a.id]);
    await w.t.request.get(api(`/documents/${hidden.id}`)).set(guest.auth).expect(404);
    assert.deepEqual((await w.t.request.get(api(`/documents/${a.id}`)).set(guest.auth).expect(200)).body, a);
    const created = await w.t.db('kernel_events').where({ name: 'document.created', workspace_id: w.ws }).count({ n: '*' });
    assert.equal(Number(created[0].n), 3);
  });

  it('refuses editors, unknown spaces and folders of other spaces', async () => {
    await create({ title: 'No', space_id: space }, w.editor.auth).expect(403);
    assert.deepEqual(pointers(await create({ title: 'No', space_id: randomUUID() }).expect(422)), ['/space_id']);
    const folder = (await w.t.request.post(api(`/spaces/${other}/folders`)).set(w.admin.auth).send({ name: 'Elsewhere' }).expect(201)).body.id;
    assert.deepEqual(pointers(await create({ title: 'No', space_id: space, folder_id: folder }).expect(422)), ['/folder_id']);
    await create({ title: 'No', space_id: space, version: 3 }).expect(422);
    await create({ title: '  ', space_id: space }).expect(422);
    assert.equal((await w.t.db('documents').where({ workspace_id: w.ws }).count({ n: '*' }))[0].n, 0);
  });

  it('writes content with the version rule: editors write, members read, one of two writers wins', async () => {
    const d = (await create({ title: 'Spec', space_id: space }).expect(201)).body;
    const content = (auth = w.editor.auth) => w.t.request.get(api(`/documents/${d.id}/content`)).set(auth);
    const write = (body: object, auth = w.editor.auth) => w.t.request.put(api(`/documents/${d.id}/content`)).set(auth).send(body);
    assert.deepEqual({ ...(await content().expect(200)).body, updated_at: null }, { document_id: d.id, content: null, version: 0, updated_at: null, updated_by: creator.id });
    await write({ content: doc('Draft'), version: 0 }, w.member.auth).expect(403);
    await write({ content: doc('Draft'), version: 0 }, guest.auth).expect(403);
    assert.equal((await write({ content: doc('Draft'), version: 0 }).expect(200)).body.version, 1);
    const stale = await write({ content: doc('Old'), version: 0 }, w.admin.auth).expect(409);
    assert.equal(stale.body.current_version, 1);
    assert.equal(stale.body.updated_by, w.editor.id);
    const both = await Promise.all([write({ content: doc('A'), version: 1 }), write({ content: doc('B'), version: 1 }, w.admin.auth)]);
    assert.deepEqual(both.map((r) => r.status).sort(), [200, 409]);
    const read = (await content(guest.auth).expect(200)).body;
    assert.equal(read.version, 2);
    assert.deepEqual(read.content, both.find((r) => r.status === 200)!.body.content);
    assert.equal((await w.t.request.get(api(`/documents/${d.id}`)).set(w.member.auth).expect(200)).body.version, 2);
  });

  it('renames and moves between folders of its space for creators, and deletes', async () => {
    const d = (await create({ title: 'Old name', space_id: space }).expect(201)).body;
    const folder = (await w.t.request.post(api(`/spaces/${space}/folders`)).set(w.admin.auth).send({ name: 'F' }).expect(201)).body.id;
    const elsewhere = (await w.t.request.post(api(`/spaces/${other}/folders`)).set(w.admin.auth).send({ name: 'G' }).expect(201)).body.id;
    await w.t.request.patch(api(`/documents/${d.id}`)).set(w.editor.auth).send({ title: 'No' }).expect(403);
    const renamed = (await w.t.request.patch(api(`/documents/${d.id}`)).set(creator.auth).send({ title: 'New name', folder_id: folder }).expect(200)).body;
    assert.equal(renamed.title, 'New name');
    assert.equal(renamed.folder_id, folder);
    assert.deepEqual(pointers(await w.t.request.patch(api(`/documents/${d.id}`)).set(creator.auth).send({ folder_id: elsewhere }).expect(422)), ['/folder_id']);
    await w.t.request.patch(api(`/documents/${d.id}`)).set(creator.auth).send({ space_id: other }).expect(422);
    await w.t.request.delete(api(`/folders/${folder}`)).set(w.admin.auth).expect(204);
    assert.equal((await w.t.request.get(api(`/documents/${d.id}`)).set(creator.auth).expect(200)).body.folder_id, null);
    await w.t.request.delete(api(`/documents/${d.id}`)).set(w.editor.auth).expect(403);
    await w.t.request.delete(api(`/documents/${d.id}`)).set(creator.auth).expect(204);
    await w.t.request.get(api(`/documents/${d.id}`)).set(creator.auth).expect(404);
    assert.deepEqual(await w.t.db('kernel_events').where({ workspace_id: w.ws }).where('name', 'like', 'document.%').orderBy('id').pluck('name'), ['document.created', 'document.updated', 'document.deleted']);
  });

  it('goes with its space', async () => {
    const d = (await create({ title: 'Gone', space_id: other }).expect(201)).body;
    await w.t.request.delete(api(`/spaces/${other}`)).set(w.admin.auth).expect(204);
    assert.equal(await w.t.db('documents').where({ id: d.id }).first(), undefined);
  });

  it('exports what a member created or wrote, and on erasure keeps the text without their name', async () => {
    const d = (await create({ title: 'Theirs', space_id: space }).expect(201)).body;
    const mentioned = { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Ask ' }, { type: 'mention', attrs: { user_id: creator.id } }] }] };
    await w.t.request.put(api(`/documents/${d.id}/content`)).set(w.editor.auth).send({ content: mentioned, version: 0 }).expect(200);
    const record = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'R' } }).expect(201)).body.id;
    await w.t.request.put(w.url(`/${record}/description`)).set(creator.auth).send({ content: doc('Mine'), version: 0 }).expect(200);
    const files = await memberExport(w.t, w.ws, w.admin, creator.id);
    assert.deepEqual((files['documents.json'] as Array<{ id: string; title: string; created_by_you: boolean }>).map((x) => [x.id, x.title, x.created_by_you]), [[d.id, 'Theirs', true]]);
    assert.deepEqual((files['record_descriptions.json'] as Array<{ record_id: string }>).map((x) => x.record_id), [record]);

    const receipt = (await w.t.request.post(api(`/members/${creator.id}/erase`)).set(w.admin.auth).send({ confirm: creator.email }).expect(200)).body;
    const report = receipt.reports.find((r: { kind: string }) => r.kind === 'documents');
    assert.deepEqual([report.deleted, report.pseudonymised], [0, 2]);
    const kept = (await w.t.request.get(api(`/documents/${d.id}`)).set(w.admin.auth).expect(200)).body;
    assert.equal(kept.created_by, null);
    assert.equal((await w.t.request.get(w.url(`/${record}/description`)).set(w.admin.auth).expect(200)).body.updated_by, null);
    assert.equal((await w.t.db('documents').where({ id: d.id }).first()).text, 'Ask @Former member');
  });
});
