import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { createSpace, join, patFor } from '../spaces/helpers.ts';

describe('access grants', () => {
  let t: TestKernel;
  let ann: SignedUpUser; // admin
  let cat: SignedUpUser; // creator
  let mo: SignedUpUser; // member
  let ed: SignedUpUser; // editor
  let out: SignedUpUser; // admin of another workspace only
  let ws: string;
  let otherWs: string;
  let space: string;
  let foreignSpace: string;

  before(async () => {
    t = await startTestKernel();
    [ann, cat, mo, ed, out] = await Promise.all(Array.from({ length: 5 }, () => signUp(t)));
    ws = (await createWorkspace(t, ann)).id;
    otherWs = (await createWorkspace(t, out)).id;
    await join(t, ws, cat, 'creator');
    await join(t, ws, mo, 'member');
    await join(t, ws, ed, 'editor');
    space = (await createSpace(t, ws, ann.auth, 'Main')).id;
    foreignSpace = (await createSpace(t, otherWs, out.auth, 'Foreign')).id;
  });
  after(() => t.stop());

  const url = (path = '', w = ws) => `/api/v1/workspaces/${w}/access${path}`;
  const put = (auth: { Authorization: string }, body: object) => t.request.put(url()).set(auth).send(body);

  it('keeps one grant per space and user: 201 when new, 200 when the role is replaced', async () => {
    const created = await put(ann.auth, { scope_type: 'space', scope_id: space, user_id: mo.id, role: 'editor' });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body).sort(), ['created_at', 'created_by', 'id', 'role', 'scope_id', 'scope_type', 'updated_at', 'user_id', 'workspace_id']);
    assert.deepEqual(
      [created.body.workspace_id, created.body.scope_type, created.body.scope_id, created.body.user_id, created.body.role, created.body.created_by],
      [ws, 'space', space, mo.id, 'editor', ann.id],
    );
    const replaced = await put(ann.auth, { scope_type: 'space', scope_id: space, user_id: mo.id, role: 'creator' });
    assert.equal(replaced.status, 200);
    assert.deepEqual([replaced.body.id, replaced.body.role], [created.body.id, 'creator']);
    const same = await put(ann.auth, { scope_type: 'space', scope_id: space, user_id: mo.id, role: 'creator' });
    assert.equal(same.status, 200);
    assert.deepEqual(same.body, replaced.body);
    const rows = await t.db('access_grants').where({ scope_id: space, user_id: mo.id });
    assert.deepEqual(rows.map((r) => r.role), ['creator']);

    const events = await t.db('kernel_events').where({ workspace_id: ws, name: 'access.granted' });
    assert.equal(events.length, 2, 'an unchanged role is no new grant');
  });

  it('refuses non-members, scopes outside the workspace, databases (no such plugin yet) and other roles', async () => {
    const stranger = await signUp(t);
    const notMember = await put(ann.auth, { scope_type: 'space', scope_id: space, user_id: stranger.id, role: 'member' });
    assert.equal(notMember.status, 422);
    assert.deepEqual(notMember.body.errors.map((e: { pointer: string }) => e.pointer), ['/user_id']);
    for (const [scope_type, scope_id] of [['space', foreignSpace], ['space', '00000000-0000-4000-8000-000000000000'], ['database', space]]) {
      const res = await put(ann.auth, { scope_type, scope_id, user_id: mo.id, role: 'member' });
      assert.equal(res.status, 422, `${scope_type} ${scope_id}`);
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/scope_id']);
    }
    for (const role of ['admin', 'guest', 'owner']) {
      const res = await put(ann.auth, { scope_type: 'space', scope_id: space, user_id: ed.id, role });
      assert.equal(res.status, 422);
      assert.equal(res.body.errors[0].pointer, '/role');
    }
    const extra = await put(ann.auth, { scope_type: 'space', scope_id: space, user_id: ed.id, role: 'member', workspace_id: otherWs });
    assert.equal(extra.status, 422);
    assert.equal(extra.body.errors[0].pointer, '/workspace_id');
    assert.deepEqual(await t.db('access_grants').whereIn('user_id', [stranger.id, ed.id]), []);
  });

  it('is for admins only', async () => {
    const body = { scope_type: 'space', scope_id: space, user_id: ed.id, role: 'creator' };
    assert.equal((await put(cat.auth, body)).status, 403);
    assert.equal((await put(ed.auth, body)).status, 403);
    assert.equal((await t.request.get(url()).set(cat.auth)).status, 403);
    assert.equal((await put(out.auth, body)).status, 404);
    // A write token of an admin acts as a creator at most; an admin token as its owner.
    assert.equal((await put(await patFor(t, ann, ws, 'write'), body)).status, 403);
    assert.deepEqual(await t.db('access_grants').where({ user_id: ed.id }), []);
    assert.equal((await put(await patFor(t, ann, ws, 'admin'), body)).status, 201);
    const grant = await t.db('access_grants').where({ user_id: ed.id }).first();
    assert.equal((await t.request.delete(url(`/${grant.id}`)).set(cat.auth)).status, 403);
    assert.ok(await t.db('access_grants').where({ id: grant.id }).first());
  });

  it('lists grants, narrowed by scope and user', async () => {
    const fresh = (await createWorkspace(t, ann)).id;
    await join(t, fresh, mo, 'member');
    await join(t, fresh, ed, 'editor');
    const s1 = (await createSpace(t, fresh, ann.auth, 'S1')).id;
    const s2 = (await createSpace(t, fresh, ann.auth, 'S2')).id;
    const ids = [];
    for (const [scope_id, user] of [[s1, mo], [s1, ed], [s2, mo]] as const) {
      ids.push((await t.request.put(url('', fresh)).set(ann.auth).send({ scope_type: 'space', scope_id, user_id: user.id, role: 'member' }).expect(201)).body.id);
    }
    const all = await t.request.get(url('', fresh)).set(ann.auth);
    assert.deepEqual(all.body.data.map((g: { id: string }) => g.id), ids);
    const ofMo = await t.request.get(url(`?user_id=${mo.id}`, fresh)).set(ann.auth);
    assert.deepEqual(ofMo.body.data.map((g: { id: string }) => g.id), [ids[0], ids[2]]);
    const onS1 = await t.request.get(url(`?scope_type=space&scope_id=${s1}`, fresh)).set(ann.auth);
    assert.deepEqual(onS1.body.data.map((g: { id: string }) => g.id), [ids[0], ids[1]]);
    const none = await t.request.get(url('?scope_type=database', fresh)).set(ann.auth);
    assert.deepEqual(none.body, { data: [], next_cursor: null });
    const page = await t.request.get(url('?limit=2', fresh)).set(ann.auth);
    assert.deepEqual(page.body.data.map((g: { id: string }) => g.id), ids.slice(0, 2));
    const rest = await t.request.get(url(`?limit=2&cursor=${page.body.next_cursor}`, fresh)).set(ann.auth);
    assert.deepEqual(rest.body, { data: [all.body.data[2]], next_cursor: null });
    assert.equal((await t.request.get(url('?scope_type=folder', fresh)).set(ann.auth)).status, 422);
    // Another workspace's list does not show them.
    assert.deepEqual((await t.request.get(url('', otherWs)).set(out.auth)).body.data, []);
  });

  it('revokes a grant; a grant of another workspace is unknown there', async () => {
    const grant = (await put(ann.auth, { scope_type: 'space', scope_id: space, user_id: cat.id, role: 'member' }).expect(201)).body;
    assert.equal((await t.request.delete(url(`/${grant.id}`, otherWs)).set(out.auth)).status, 404);
    assert.ok(await t.db('access_grants').where({ id: grant.id }).first());
    assert.equal((await t.request.delete(url(`/${grant.id}`)).set(ann.auth)).status, 204);
    assert.equal(await t.db('access_grants').where({ id: grant.id }).first(), undefined);
    assert.equal((await t.request.delete(url(`/${grant.id}`)).set(ann.auth)).status, 404);
    const revoked = await t.db('kernel_events').where({ workspace_id: ws, name: 'access.revoked' });
    assert.ok(revoked.some((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).grant.id === grant.id));
  });

  it('takes a member\'s grants away when they leave the workspace, and only theirs', async () => {
    const leaver = await signUp(t);
    await join(t, ws, leaver, 'member');
    const s2 = (await createSpace(t, ws, ann.auth, 'Second')).id;
    await put(ann.auth, { scope_type: 'space', scope_id: space, user_id: leaver.id, role: 'editor' }).expect(201);
    await put(ann.auth, { scope_type: 'space', scope_id: s2, user_id: leaver.id, role: 'creator' }).expect(201);
    // Their grant in another workspace stays.
    await join(t, otherWs, leaver, 'member');
    await t.request.put(url('', otherWs)).set(out.auth).send({ scope_type: 'space', scope_id: foreignSpace, user_id: leaver.id, role: 'editor' }).expect(201);
    const othersBefore = await t.db('access_grants').where({ workspace_id: ws }).whereNot({ user_id: leaver.id }).count({ n: '*' });

    await t.request.delete(`/api/v1/workspaces/${ws}/members/${leaver.id}`).set(ann.auth).expect(204);

    assert.deepEqual(await t.db('access_grants').where({ workspace_id: ws, user_id: leaver.id }), []);
    assert.equal((await t.db('access_grants').where({ workspace_id: otherWs, user_id: leaver.id })).length, 1);
    assert.deepEqual(await t.db('access_grants').where({ workspace_id: ws }).whereNot({ user_id: leaver.id }).count({ n: '*' }), othersBefore);
  });
});
