import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { createFolder, createSpace, join } from './helpers.ts';

describe('folders', () => {
  let t: TestKernel;
  let ann: SignedUpUser; // admin
  let mo: SignedUpUser; // member
  let gus: SignedUpUser; // guest of `other` only
  let out: SignedUpUser; // admin of another workspace only
  let ws: string;
  let otherWs: string;
  let space: string;
  let other: string;

  before(async () => {
    t = await startTestKernel();
    [ann, mo, gus, out] = await Promise.all(Array.from({ length: 4 }, () => signUp(t)));
    ws = (await createWorkspace(t, ann)).id;
    otherWs = (await createWorkspace(t, out)).id;
    space = (await createSpace(t, ws, ann.auth, 'Main')).id;
    other = (await createSpace(t, ws, ann.auth, 'Other')).id;
    await join(t, ws, mo, 'member');
    await join(t, ws, gus, 'guest', [other]);
  });
  after(() => t.stop());

  const folders = (s = space) => `/api/v1/workspaces/${ws}/spaces/${s}/folders`;
  const folder = (id: string) => `/api/v1/workspaces/${ws}/folders/${id}`;

  it('creates nested folders and lists them with their parents', async () => {
    const s = (await createSpace(t, ws, ann.auth, 'Tree')).id;
    const top = await t.request.post(folders(s)).set(ann.auth).send({ name: ' Top ' });
    assert.equal(top.status, 201);
    assert.deepEqual(Object.keys(top.body).sort(), ['created_at', 'created_by', 'id', 'name', 'parent_id', 'space_id', 'updated_at', 'workspace_id']);
    assert.deepEqual([top.body.name, top.body.parent_id, top.body.space_id, top.body.workspace_id, top.body.created_by], ['Top', null, s, ws, ann.id]);
    const sub = await t.request.post(folders(s)).set(ann.auth).send({ name: 'Sub', parent_id: top.body.id });
    assert.equal(sub.status, 201);
    assert.equal(sub.body.parent_id, top.body.id);
    const list = await t.request.get(folders(s)).set(mo.auth);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body, { data: [top.body, sub.body], next_cursor: null });
    const page = await t.request.get(`${folders(s)}?limit=1`).set(mo.auth);
    assert.deepEqual(page.body.data, [top.body]);
    const rest = await t.request.get(`${folders(s)}?limit=1&cursor=${page.body.next_cursor}`).set(mo.auth);
    assert.deepEqual(rest.body, { data: [sub.body], next_cursor: null });
  });

  it('takes a parent only from the same space', async () => {
    const elsewhere = await createFolder(t, ws, other, ann.auth, 'Elsewhere');
    const foreign = await createFolder(t, otherWs, (await createSpace(t, otherWs, out.auth)).id, out.auth, 'Foreign');
    for (const parent_id of [elsewhere.id, foreign.id, '00000000-0000-4000-8000-000000000000']) {
      const res = await t.request.post(folders()).set(ann.auth).send({ name: 'Child', parent_id });
      assert.equal(res.status, 422);
      assert.equal(res.body.errors[0].pointer, '/parent_id');
    }
    assert.equal((await t.request.post(folders()).set(ann.auth).send({ name: 'Child', space_id: other })).status, 422);
    assert.deepEqual(await t.db('folders').where({ name: 'Child' }), []);
  });

  it('moves a folder with its subfolders, never into itself or below itself', async () => {
    const a = await createFolder(t, ws, space, ann.auth, 'A');
    const b = await createFolder(t, ws, space, ann.auth, 'B', a.id);
    const c = await createFolder(t, ws, space, ann.auth, 'C', b.id);
    const d = await createFolder(t, ws, space, ann.auth, 'D');
    for (const target of [a.id, b.id, c.id]) {
      const res = await t.request.patch(folder(a.id)).set(ann.auth).send({ parent_id: target });
      assert.equal(res.status, 422, `moving A under ${target}`);
      assert.equal(res.body.errors[0].pointer, '/parent_id');
    }
    const elsewhere = await createFolder(t, ws, other, ann.auth, 'Elsewhere');
    assert.equal((await t.request.patch(folder(a.id)).set(ann.auth).send({ parent_id: elsewhere.id })).status, 422);
    assert.equal((await t.db('folders').where({ id: a.id }).first()).parent_id, null);

    const moved = await t.request.patch(folder(b.id)).set(ann.auth).send({ parent_id: d.id, name: 'B2' });
    assert.equal(moved.status, 200);
    assert.deepEqual([moved.body.parent_id, moved.body.name], [d.id, 'B2']);
    assert.equal((await t.db('folders').where({ id: c.id }).first()).parent_id, b.id);
    const toTop = await t.request.patch(folder(b.id)).set(ann.auth).send({ parent_id: null });
    assert.equal(toTop.body.parent_id, null);
    const renamed = await t.request.patch(folder(b.id)).set(ann.auth).send({ name: 'B3' });
    assert.deepEqual([renamed.body.parent_id, renamed.body.name], [null, 'B3']);
    assert.equal((await t.request.patch(folder(b.id)).set(ann.auth).send({})).status, 422);
  });

  it('nests folders at most ten deep', async () => {
    const s = (await createSpace(t, ws, ann.auth, 'Deep')).id;
    const chain: string[] = [];
    for (let depth = 1; depth <= 10; depth++) chain.push((await createFolder(t, ws, s, ann.auth, `L${depth}`, chain.at(-1))).id);
    const eleventh = await t.request.post(folders(s)).set(ann.auth).send({ name: 'L11', parent_id: chain[9] });
    assert.equal(eleventh.status, 422);
    assert.equal(eleventh.body.errors[0].pointer, '/parent_id');

    // A two-level subtree fits under depth 8, not under depth 9.
    const root = await createFolder(t, ws, s, ann.auth, 'Root');
    await createFolder(t, ws, s, ann.auth, 'Leaf', root.id);
    assert.equal((await t.request.patch(folder(root.id)).set(ann.auth).send({ parent_id: chain[8] })).status, 422);
    assert.equal((await t.request.patch(folder(root.id)).set(ann.auth).send({ parent_id: chain[7] })).status, 200);
  });

  it('deletes a folder with its subfolders', async () => {
    const a = await createFolder(t, ws, space, ann.auth, 'Gone');
    const b = await createFolder(t, ws, space, ann.auth, 'Gone too', a.id);
    const sibling = await createFolder(t, ws, space, ann.auth, 'Stays');
    assert.equal((await t.request.delete(folder(a.id)).set(ann.auth)).status, 204);
    assert.deepEqual(await t.db('folders').whereIn('id', [a.id, b.id]), []);
    assert.ok(await t.db('folders').where({ id: sibling.id }).first());
    assert.equal((await t.request.delete(folder(a.id)).set(ann.auth)).status, 404);
  });

  it('needs creator on the space to change folders and member to list them', async () => {
    const f = await createFolder(t, ws, space, ann.auth, 'Guarded');
    assert.equal((await t.request.get(folders()).set(mo.auth)).status, 200);
    assert.equal((await t.request.post(folders()).set(mo.auth).send({ name: 'No' })).status, 403);
    assert.equal((await t.request.patch(folder(f.id)).set(mo.auth).send({ name: 'No' })).status, 403);
    assert.equal((await t.request.delete(folder(f.id)).set(mo.auth)).status, 403);
    // A guest of another space does not see this one's folders at all.
    assert.equal((await t.request.get(folders()).set(gus.auth)).status, 404);
    assert.equal((await t.request.patch(folder(f.id)).set(gus.auth).send({ name: 'No' })).status, 404);
    assert.equal((await t.request.get(folders(other)).set(gus.auth)).status, 200);
    assert.equal((await t.db('folders').where({ id: f.id }).first()).name, 'Guarded');
  });

  it('answers 404 for folders of another workspace', async () => {
    const mine = await createFolder(t, ws, space, ann.auth, 'Mine');
    const foreignSpace = (await createSpace(t, otherWs, out.auth)).id;
    const foreign = await createFolder(t, otherWs, foreignSpace, out.auth, 'Theirs');
    assert.equal((await t.request.patch(folder(foreign.id)).set(ann.auth).send({ name: 'Stolen' })).status, 404);
    assert.equal((await t.request.delete(`/api/v1/workspaces/${otherWs}/folders/${mine.id}`).set(out.auth)).status, 404);
    assert.equal((await t.request.get(folders(foreignSpace)).set(ann.auth)).status, 404);
    assert.ok(await t.db('folders').where({ id: mine.id }).first());
    assert.equal((await t.db('folders').where({ id: foreign.id }).first()).name, 'Theirs');
  });

  it('records domain events for folders', async () => {
    const f = await createFolder(t, ws, space, ann.auth, 'Eventful');
    await t.request.patch(folder(f.id)).set(ann.auth).send({ name: 'Renamed' }).expect(200);
    await t.request.delete(folder(f.id)).set(ann.auth).expect(204);
    const events = await t.db('kernel_events').where({ workspace_id: ws }).whereLike('name', 'folder.%').orderBy('id');
    const mine = events.filter((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).folder.id === f.id);
    assert.deepEqual(mine.map((e) => e.name), ['folder.created', 'folder.updated', 'folder.deleted']);
  });

  it('two folders moved into each other at once: one move wins, no cycle', async () => {
    for (let round = 0; round < 5; round++) {
      const a = await createFolder(t, ws, space, ann.auth, `A${round}`);
      const b = await createFolder(t, ws, space, ann.auth, `B${round}`);
      const moves = await Promise.all([
        t.request.patch(folder(a.id)).set(ann.auth).send({ parent_id: b.id }),
        t.request.patch(folder(b.id)).set(ann.auth).send({ parent_id: a.id }),
      ]);
      assert.deepEqual(moves.map((m) => m.status).sort(), [200, 422]);
      const parents = (await t.db('folders').whereIn('id', [a.id, b.id])).map((f) => f.parent_id);
      assert.ok(parents.includes(null), 'one of them stays at the top');
    }
  });
});
