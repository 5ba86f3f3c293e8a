import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { createFolder, createSpace, join } from './helpers.ts';

describe('spaces', () => {
  let t: TestKernel;
  let ann: SignedUpUser; // admin
  let cat: SignedUpUser; // creator
  let cy: SignedUpUser; // another creator
  let ed: SignedUpUser; // editor
  let mo: SignedUpUser; // member
  let gus: SignedUpUser; // guest
  let out: SignedUpUser; // admin of another workspace only
  let ws: string;
  let otherWs: string;

  before(async () => {
    t = await startTestKernel();
    [ann, cat, cy, ed, mo, gus, out] = await Promise.all(Array.from({ length: 7 }, () => signUp(t)));
    ws = (await createWorkspace(t, ann)).id;
    otherWs = (await createWorkspace(t, out)).id;
    await join(t, ws, cat, 'creator');
    await join(t, ws, cy, 'creator');
    await join(t, ws, ed, 'editor');
    await join(t, ws, mo, 'member');
    await join(t, ws, gus, 'member');
  });
  after(() => t.stop());

  const url = (path = '') => `/api/v1/workspaces/${ws}/spaces${path}`;

  it('creates, reads, renames and deletes a space', async () => {
    const created = await t.request.post(url()).set(ann.auth).send({ name: '  Roadmap  ', description: 'Plans' });
    assert.equal(created.status, 201);
    const space = created.body;
    assert.deepEqual(Object.keys(space).sort(), ['created_at', 'created_by', 'description', 'id', 'name', 'updated_at', 'workspace_id']);
    assert.deepEqual([space.name, space.description, space.workspace_id, space.created_by], ['Roadmap', 'Plans', ws, ann.id]);

    const read = await t.request.get(url(`/${space.id}`)).set(mo.auth);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, space);

    const renamed = await t.request.patch(url(`/${space.id}`)).set(cat.auth).send({ name: 'Road', description: null });
    assert.equal(renamed.status, 200);
    assert.deepEqual([renamed.body.name, renamed.body.description, renamed.body.created_by], ['Road', null, ann.id]);
    assert.ok(renamed.body.updated_at >= space.updated_at);

    assert.equal((await t.request.delete(url(`/${space.id}`)).set(ann.auth)).status, 204);
    assert.equal((await t.request.get(url(`/${space.id}`)).set(ann.auth)).status, 404);
    assert.equal((await t.request.delete(url(`/${space.id}`)).set(ann.auth)).status, 404);
    assert.equal(await t.db('spaces').where({ id: space.id }).first(), undefined);
  });

  it('refuses blank names, unknown properties and empty patches', async () => {
    const blank = await t.request.post(url()).set(ann.auth).send({ name: '   ' });
    assert.equal(blank.status, 422);
    assert.equal(blank.body.errors[0].pointer, '/name');
    const sneaky = await t.request.post(url()).set(ann.auth).send({ name: 'X', created_by: mo.id });
    assert.equal(sneaky.status, 422);
    assert.equal(sneaky.body.errors[0].pointer, '/created_by');
    const long = await t.request.post(url()).set(ann.auth).send({ name: 'x'.repeat(201) });
    assert.equal(long.status, 422);
    const space = await createSpace(t, ws, ann.auth, 'Kept');
    const empty = await t.request.patch(url(`/${space.id}`)).set(ann.auth).send({});
    assert.equal(empty.status, 422);
    assert.equal((await t.db('spaces').where({ id: space.id }).first()).name, 'Kept');
  });

  it('lets creators create and change spaces, and members only read them', async () => {
    assert.equal((await t.request.post(url()).set(ed.auth).send({ name: 'No' })).status, 403);
    assert.equal((await t.request.post(url()).set(mo.auth).send({ name: 'No' })).status, 403);
    const space = await createSpace(t, ws, cat.auth, 'Yes');
    assert.equal((await t.request.patch(url(`/${space.id}`)).set(ed.auth).send({ name: 'No' })).status, 403);
    assert.equal((await t.request.patch(url(`/${space.id}`)).set(mo.auth).send({ name: 'No' })).status, 403);
    assert.equal((await t.request.patch(url(`/${space.id}`)).set(cy.auth).send({ name: 'Renamed' })).status, 200);
    assert.equal((await t.request.get(url(`/${space.id}`)).set(mo.auth)).body.name, 'Renamed');
    const list = await t.request.get(url()).set(mo.auth);
    assert.ok(list.body.data.some((s: { id: string }) => s.id === space.id));
  });

  it('lets only a space\'s creator (as creator) or an admin delete it', async () => {
    const mine = await createSpace(t, ws, cat.auth, 'Mine');
    assert.equal((await t.request.delete(url(`/${mine.id}`)).set(cy.auth)).status, 403);
    assert.equal((await t.request.delete(url(`/${mine.id}`)).set(cat.auth)).status, 204);

    const admins = await createSpace(t, ws, ann.auth, 'Admin\'s');
    assert.equal((await t.request.delete(url(`/${admins.id}`)).set(cat.auth)).status, 403);
    const cats = await createSpace(t, ws, cat.auth, 'Cat\'s');
    assert.equal((await t.request.delete(url(`/${cats.id}`)).set(ann.auth)).status, 204);

    // Its creator demoted below creator cannot delete it any more.
    const demoted = await createSpace(t, ws, cy.auth, 'Demoted');
    await t.request.patch(`/api/v1/workspaces/${ws}/members/${cy.id}`).set(ann.auth).send({ role: 'editor' }).expect(200);
    assert.equal((await t.request.delete(url(`/${demoted.id}`)).set(cy.auth)).status, 403);
    await t.request.patch(`/api/v1/workspaces/${ws}/members/${cy.id}`).set(ann.auth).send({ role: 'creator' }).expect(200);
    assert.ok(await t.db('spaces').where({ id: demoted.id }).first());
  });

  it('answers 404 to non-members and for spaces of another workspace', async () => {
    const space = await createSpace(t, ws, ann.auth, 'Private');
    const foreign = await createSpace(t, otherWs, out.auth, 'Foreign');
    assert.equal((await t.request.get(url()).set(out.auth)).status, 404);
    assert.equal((await t.request.get(url(`/${space.id}`)).set(out.auth)).status, 404);
    assert.equal((await t.request.post(url()).set(out.auth).send({ name: 'Intruder' })).status, 404);
    assert.equal((await t.request.patch(url(`/${space.id}`)).set(out.auth).send({ name: 'Mine' })).status, 404);
    // A space id under the wrong workspace is unknown, even to an admin of both ends.
    assert.equal((await t.request.get(url(`/${foreign.id}`)).set(ann.auth)).status, 404);
    assert.equal((await t.request.get(`/api/v1/workspaces/${otherWs}/spaces/${space.id}`).set(out.auth)).status, 404);
    assert.equal((await t.request.delete(`/api/v1/workspaces/${otherWs}/spaces/${space.id}`).set(out.auth)).status, 404);
    assert.ok(await t.db('spaces').where({ id: space.id }).first());
    assert.equal((await t.request.get(url('/not-a-uuid')).set(ann.auth)).status, 404);
  });

  it('shows a guest only the spaces it was given', async () => {
    const given = await createSpace(t, ws, ann.auth, 'Given');
    const hidden = await createSpace(t, ws, ann.auth, 'Hidden');
    await t.request.patch(`/api/v1/workspaces/${ws}/members/${gus.id}`).set(ann.auth).send({ role: 'guest', space_ids: [given.id] }).expect(200);
    const list = await t.request.get(url()).set(gus.auth);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((s: { id: string }) => s.id), [given.id]);
    assert.equal((await t.request.get(url(`/${given.id}`)).set(gus.auth)).status, 200);
    assert.equal((await t.request.get(url(`/${hidden.id}`)).set(gus.auth)).status, 404);
    // Inside its space a guest is a member: it reads, it does not change.
    assert.equal((await t.request.patch(url(`/${given.id}`)).set(gus.auth).send({ name: 'Mine' })).status, 403);
    assert.equal((await t.request.post(url()).set(gus.auth).send({ name: 'Mine' })).status, 403);
    // Members see every space.
    const all = (await t.request.get(`${url()}?limit=200`).set(mo.auth)).body.data.map((s: { id: string }) => s.id);
    assert.ok(all.includes(given.id) && all.includes(hidden.id));
  });

  it('pages through spaces oldest first', async () => {
    const fresh = (await createWorkspace(t, ann)).id;
    const ids = [];
    for (const name of ['A', 'B', 'C']) ids.push((await createSpace(t, fresh, ann.auth, name)).id);
    const first = await t.request.get(`/api/v1/workspaces/${fresh}/spaces?limit=2`).set(ann.auth);
    assert.deepEqual(first.body.data.map((s: { id: string }) => s.id), ids.slice(0, 2));
    assert.ok(first.body.next_cursor);
    const second = await t.request.get(`/api/v1/workspaces/${fresh}/spaces?limit=2&cursor=${first.body.next_cursor}`).set(ann.auth);
    assert.deepEqual(second.body.data.map((s: { id: string }) => s.id), ids.slice(2));
    assert.equal(second.body.next_cursor, null);
    assert.equal((await t.request.get(`/api/v1/workspaces/${fresh}/spaces?cursor=garbage`).set(ann.auth)).status, 422);
  });

  it('takes a deleted space\'s folders and grants with it, and drops it from guests\' spaces', async () => {
    const doomed = await createSpace(t, ws, ann.auth, 'Doomed');
    const kept = await createSpace(t, ws, ann.auth, 'Kept');
    const top = await createFolder(t, ws, doomed.id, ann.auth, 'Top');
    await createFolder(t, ws, doomed.id, ann.auth, 'Sub', top.id);
    const keptFolder = await createFolder(t, ws, kept.id, ann.auth, 'Elsewhere');
    await t.request.put(`/api/v1/workspaces/${ws}/access`).set(ann.auth).send({ scope_type: 'space', scope_id: doomed.id, user_id: mo.id, role: 'creator' }).expect(201);
    await t.request.put(`/api/v1/workspaces/${ws}/access`).set(ann.auth).send({ scope_type: 'space', scope_id: kept.id, user_id: mo.id, role: 'editor' }).expect(201);
    await t.request.patch(`/api/v1/workspaces/${ws}/members/${gus.id}`).set(ann.auth).send({ role: 'guest', space_ids: [doomed.id, kept.id] }).expect(200);

    assert.equal((await t.request.delete(url(`/${doomed.id}`)).set(ann.auth)).status, 204);

    assert.deepEqual(await t.db('folders').where({ space_id: doomed.id }), []);
    assert.ok(await t.db('folders').where({ id: keptFolder.id }).first());
    assert.deepEqual(await t.db('access_grants').where({ scope_id: doomed.id }), []);
    assert.equal((await t.db('access_grants').where({ scope_id: kept.id, user_id: mo.id }).first()).role, 'editor');
    const guest = await t.db('workspace_members').where({ workspace_id: ws, user_id: gus.id }).first();
    assert.deepEqual(guest.space_ids, [kept.id]);
  });

  it('records domain events for spaces', async () => {
    const space = await createSpace(t, ws, cat.auth, 'Eventful');
    await t.request.patch(url(`/${space.id}`)).set(cat.auth).send({ name: 'Renamed' }).expect(200);
    await t.request.delete(url(`/${space.id}`)).set(cat.auth).expect(204);
    const events = await t.db('kernel_events').where({ workspace_id: ws }).whereLike('name', 'space.%').orderBy('id');
    const mine = events.filter((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).space.id === space.id);
    assert.deepEqual(mine.map((e) => [e.name, e.actor_id]), [['space.created', cat.id], ['space.updated', cat.id], ['space.deleted', cat.id]]);
  });

  it('a workspace deleted while its spaces, folders and grants are being written leaves none of them behind', async () => {
    for (let round = 0; round < 3; round++) {
      const doomed = (await createWorkspace(t, ann)).id;
      await join(t, doomed, mo, 'member');
      const s = await createSpace(t, doomed, ann.auth, 'S');
      const folders = await Promise.all(Array.from({ length: 4 }, (_, i) => createFolder(t, doomed, s.id, ann.auth, `F${i}`)));
      const base = `/api/v1/workspaces/${doomed}`;
      const writers = Array.from({ length: 16 }, (_, i) => {
        switch (i % 8) {
          case 0: return t.request.post(`${base}/spaces`).set(ann.auth).send({ name: `race ${i}` });
          case 1: return t.request.post(`${base}/spaces/${s.id}/folders`).set(ann.auth).send({ name: `race ${i}`, parent_id: folders[0].id });
          case 2: return t.request.patch(`${base}/folders/${folders[1].id}`).set(ann.auth).send({ parent_id: folders[2].id });
          case 3: return t.request.delete(`${base}/folders/${folders[3].id}`).set(ann.auth);
          case 4: return t.request.put(`${base}/access`).set(ann.auth).send({ scope_type: 'space', scope_id: s.id, user_id: mo.id, role: 'editor' });
          case 5: return t.request.patch(`${base}/spaces/${s.id}`).set(ann.auth).send({ name: `race ${i}` });
          case 6: return t.request.delete(`${base}/spaces/${s.id}`).set(ann.auth);
          default: return t.request.get(`${base}/spaces`).set(ann.auth);
        }
      });
      const [deletion, ...results] = await Promise.all([t.request.delete(base).set(ann.auth), ...writers]);
      assert.equal(deletion.status, 204, JSON.stringify(deletion.body));
      for (const res of results) assert.ok([200, 201, 204, 404, 422].includes(res.status), `a racing write answered ${res.status} ${JSON.stringify(res.body)}`);
      for (const table of ['spaces', 'folders', 'access_grants']) assert.deepEqual(await t.db(table).where({ workspace_id: doomed }), [], table);
    }
  });
});
