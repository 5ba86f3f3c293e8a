import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { createFolder, createSpace, join, patFor } from '../spaces/helpers.ts';
import type { UserPrincipal } from '../../../core/principal.ts';

/** Effective role = max(workspace role unless guest, space grant, database grant), capped by a token's scope. */
describe('effective roles with grants', () => {
  let t: TestKernel;
  let ann: SignedUpUser; // admin
  let cat: SignedUpUser; // creator
  let mo: SignedUpUser; // member
  let gus: SignedUpUser; // guest of S
  let ws: string;
  let otherWs: string;
  let S: string;
  let T: string;

  before(async () => {
    t = await startTestKernel();
    [ann, cat, mo, gus] = await Promise.all(Array.from({ length: 4 }, () => signUp(t)));
    ws = (await createWorkspace(t, ann)).id;
    otherWs = (await createWorkspace(t, ann)).id;
    await join(t, ws, cat, 'creator');
    await join(t, ws, mo, 'member');
    S = (await createSpace(t, ws, cat.auth, 'S')).id;
    T = (await createSpace(t, ws, cat.auth, 'T')).id;
    await join(t, ws, gus, 'guest', [S]);
  });
  after(() => t.stop());

  const spaceUrl = (id: string) => `/api/v1/workspaces/${ws}/spaces/${id}`;
  const grant = (user: SignedUpUser, scope_id: string, role: string) =>
    t.request.put(`/api/v1/workspaces/${ws}/access`).set(ann.auth).send({ scope_type: 'space', scope_id, user_id: user.id, role });

  it('a creator grant on a space lets a member change that space, and no other', async () => {
    const f = await createFolder(t, ws, S, cat.auth, 'In S');
    const canChange = async (space: string) => {
      const patch = await t.request.patch(spaceUrl(space)).set(mo.auth).send({ name: space === S ? 'S' : 'T' });
      const create = await t.request.post(`${spaceUrl(space)}/folders`).set(mo.auth).send({ name: 'By mo' });
      return [patch.status, create.status];
    };
    assert.deepEqual(await canChange(S), [403, 403]);
    await grant(mo, S, 'editor').expect(201);
    assert.deepEqual(await canChange(S), [403, 403], 'editor is below creator');
    const upgraded = await grant(mo, S, 'creator').expect(200);
    assert.deepEqual(await canChange(S), [200, 201]);
    assert.equal((await t.request.patch(`/api/v1/workspaces/${ws}/folders/${f.id}`).set(mo.auth).send({ name: 'Renamed by mo' })).status, 200);
    assert.deepEqual(await canChange(T), [403, 403]);
    // Deleting a space still needs an admin, or its creator.
    assert.equal((await t.request.delete(spaceUrl(S)).set(mo.auth)).status, 403);
    // Revocation counts from the next request.
    await t.request.delete(`/api/v1/workspaces/${ws}/access/${upgraded.body.id}`).set(ann.auth).expect(204);
    assert.deepEqual(await canChange(S), [403, 403]);
  });

  it('a grant never lowers a workspace role', async () => {
    await grant(cat, S, 'member').expect(201);
    assert.equal((await t.request.patch(spaceUrl(S)).set(cat.auth).send({ name: 'S' })).status, 200);
  });

  it('a guest sees its own spaces, and the spaces it is granted', async () => {
    const visible = async () => (await t.request.get(`/api/v1/workspaces/${ws}/spaces`).set(gus.auth).expect(200)).body.data.map((s: { id: string }) => s.id);
    assert.deepEqual(await visible(), [S]);
    assert.equal((await t.request.get(spaceUrl(S)).set(gus.auth)).status, 200);
    assert.equal((await t.request.get(spaceUrl(T)).set(gus.auth)).status, 404);
    assert.equal((await t.request.get(`${spaceUrl(T)}/folders`).set(gus.auth)).status, 404);

    const onT = await grant(gus, T, 'member').expect(201);
    assert.deepEqual(await visible(), [S, T]);
    assert.equal((await t.request.get(spaceUrl(T)).set(gus.auth)).status, 200);
    assert.equal((await t.request.patch(spaceUrl(T)).set(gus.auth).send({ name: 'T' })).status, 403);
    await grant(gus, T, 'creator').expect(200);
    assert.equal((await t.request.post(`${spaceUrl(T)}/folders`).set(gus.auth).send({ name: 'By the guest' })).status, 201);
    // Still a guest workspace-wide: no new spaces, no grants.
    assert.equal((await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(gus.auth).send({ name: 'No' })).status, 403);

    await t.request.delete(`/api/v1/workspaces/${ws}/access/${onT.body.id}`).set(ann.auth).expect(204);
    assert.deepEqual(await visible(), [S]);
    assert.equal((await t.request.get(spaceUrl(T)).set(gus.auth)).status, 404);
  });

  it('a write token of an admin acts as a creator at most, and only in its workspace', async () => {
    const write = await patFor(t, ann, ws, 'write');
    assert.equal((await t.request.patch(spaceUrl(T)).set(write).send({ name: 'T' })).status, 200);
    assert.equal((await t.request.delete(spaceUrl(T)).set(write)).status, 403, 'someone else\'s space needs an admin');
    const own = await createSpace(t, ws, write, 'Made by the token');
    assert.equal((await t.request.delete(spaceUrl(own.id)).set(write)).status, 204, 'its owner created it, as a creator');
    assert.ok(await t.db('spaces').where({ id: T }).first());

    const elsewhere = await createSpace(t, otherWs, ann.auth, 'Elsewhere');
    assert.equal((await t.request.get(`/api/v1/workspaces/${otherWs}/spaces`).set(write)).status, 404);
    assert.equal((await t.request.get(`/api/v1/workspaces/${otherWs}/spaces/${elsewhere.id}`).set(write)).status, 404);

    const read = await patFor(t, ann, ws, 'read');
    assert.equal((await t.request.get(spaceUrl(T)).set(read)).status, 200);
    assert.equal((await t.request.patch(spaceUrl(T)).set(read).send({ name: 'T' })).status, 403);
  });

  it('feeds grants into workspace access inside a transaction too', async () => {
    const authz = t.container.resolverFor('access')('authz');
    const user = (await t.db('users').where({ id: mo.id }).first(['id', 'email', 'name', 'is_instance_admin', 'avatar_key', 'avatar_updated_at', 'created_at']));
    const principal: UserPrincipal = { kind: 'session', user, sessionId: 'test' };
    await grant(mo, T, 'editor').expect(201);
    const roles = await t.db.transaction(async (trx) => {
      const access = await authz.workspaceAccess(principal, ws, trx);
      return [authz.roleAt(principal, access, [{ type: 'space', id: T }]), authz.roleAt(principal, access, [{ type: 'space', id: S }])];
    });
    assert.deepEqual(roles, ['editor', 'member']);
  });
});
