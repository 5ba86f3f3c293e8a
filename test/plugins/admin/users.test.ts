import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, signUp, type SignedUpUser } from '../../../core/testing.ts';
import type { UserPrincipal } from '../../../core/principal.ts';
import { AppError } from '../../../core/errors.ts';
import { collect, createWorkspace, patOf } from './helpers.ts';

describe('admin: users', () => {
  let t: TestKernel;
  let root: SignedUpUser;

  before(async () => {
    t = await startTestKernel();
    root = await signUp(t, { name: 'Root' }); // the first user of an instance is its instance admin
  });
  after(() => t.stop());

  const adminUser = (id: string) => t.request.get(`/api/v1/admin/users/${id}`).set(root.auth);
  const patch = (id: string, body: object, auth = root.auth) => t.request.patch(`/api/v1/admin/users/${id}`).set(auth).send(body);
  const enabledAdmins = (): Promise<string[]> => t.db('users').where({ is_instance_admin: true }).whereNull('disabled_at').pluck('id');
  /** Leaves root the only enabled instance admin. */
  const onlyRootAdmin = async () => {
    for (const id of await enabledAdmins()) if (id !== root.id) await patch(id, { is_instance_admin: false }).expect(200);
  };

  it('lists users newest first with their flags and workspace count', async () => {
    const ann = await signUp(t, { name: 'Ann Lister' });
    await createWorkspace(t, ann, 'One');
    await createWorkspace(t, ann, 'Two');
    const res = await t.request.get('/api/v1/admin/users').set(root.auth).expect(200);
    const [first] = res.body.data;
    assert.equal(first.id, ann.id, 'newest first');
    assert.deepEqual(Object.keys(first).sort(), ['created_at', 'disabled', 'disabled_at', 'email', 'email_status', 'id', 'is_instance_admin', 'name', 'workspace_count']);
    assert.deepEqual({ ...first, created_at: undefined }, {
      id: ann.id,
      email: ann.email,
      name: 'Ann Lister',
      is_instance_admin: false,
      disabled: false,
      disabled_at: null,
      email_status: 'ok',
      created_at: undefined,
      workspace_count: 2,
    });
    const me = res.body.data.find((u: { id: string }) => u.id === root.id);
    assert.equal(me.is_instance_admin, true);
    assert.equal(me.workspace_count, 0);
  });

  it('searches email and name case-insensitively, taking % and _ literally', async () => {
    const tag = `zq${Date.now()}`;
    const byEmail = await signUp(t, { email: `${tag}@example.test`, name: 'Plain' });
    const byName = await signUp(t, { name: `Mx ${tag.toUpperCase()} Smith` });
    await signUp(t, { name: '100% real' });
    const res = await t.request.get(`/api/v1/admin/users?q=${tag.toUpperCase()}`).set(root.auth).expect(200);
    assert.deepEqual(res.body.data.map((u: { id: string }) => u.id).sort(), [byEmail.id, byName.id].sort());
    const percent = await t.request.get(`/api/v1/admin/users?q=${encodeURIComponent('0% r')}`).set(root.auth).expect(200);
    assert.deepEqual(percent.body.data.map((u: { name: string }) => u.name), ['100% real']);
    const underscore = await t.request.get('/api/v1/admin/users?q=_').set(root.auth).expect(200);
    assert.deepEqual(underscore.body.data, [], '_ is not a wildcard');
  });

  it('pages through every user once with a keyset cursor', async () => {
    for (let i = 0; i < 3; i++) await signUp(t);
    const all = (await t.request.get('/api/v1/admin/users?limit=200').set(root.auth).expect(200)).body.data;
    const paged = await collect<{ id: string }>(t, root.auth, '/api/v1/admin/users', 2);
    assert.deepEqual(paged.map((u) => u.id), all.map((u: { id: string }) => u.id));
    assert.equal(new Set(paged.map((u) => u.id)).size, paged.length);
    const bad = await t.request.get('/api/v1/admin/users?cursor=nonsense').set(root.auth).expect(422);
    assert.equal(bad.body.errors[0].pointer, '/query/cursor');
  });

  it('gets one user; an unknown or malformed id is 404', async () => {
    const res = await adminUser(root.id).expect(200);
    assert.equal(res.body.email, root.email);
    assert.equal((await adminUser('00000000-0000-4000-8000-000000000000')).status, 404);
    assert.equal((await adminUser('nope')).status, 404);
    assert.equal((await patch('00000000-0000-4000-8000-000000000000', { name: 'X' })).status, 404);
  });

  it('renames a user and makes them instance admin, who can then administer', async () => {
    const bea = await signUp(t);
    assert.equal((await t.request.get('/api/v1/admin/users').set(bea.auth)).status, 403);
    const res = await patch(bea.id, { name: '  Bea Admin ', is_instance_admin: true }).expect(200);
    assert.equal(res.body.name, 'Bea Admin');
    assert.equal(res.body.is_instance_admin, true);
    assert.equal((await t.request.get('/api/v1/admin/users').set(bea.auth)).status, 200);
    const row = await t.db('users').where({ id: bea.id }).first();
    assert.equal(row.name, 'Bea Admin');
    assert.equal((await t.request.get('/api/v1/me').set(bea.auth).expect(200)).body.name, 'Bea Admin');
  });

  it('disabling a user stops their session and their PAT on the very next request; re-enabling restores the PAT only', async () => {
    const cal = await signUp(t, { password: 'correct horse battery' });
    const pat = await patOf(t, cal);
    await t.request.get('/api/v1/me').set(cal.auth).expect(200);
    await t.request.get('/api/v1/workspaces').set(pat.auth).expect(200);

    const res = await patch(cal.id, { disabled: true }).expect(200);
    assert.equal(res.body.disabled, true);
    assert.ok(!Number.isNaN(Date.parse(res.body.disabled_at)));

    assert.equal((await t.request.get('/api/v1/me').set(cal.auth)).status, 401);
    assert.equal((await t.request.get('/api/v1/workspaces').set(pat.auth)).status, 401);
    assert.equal((await t.db('sessions').where({ user_id: cal.id })).length, 0, 'their sessions are gone');
    assert.equal((await t.db('personal_access_tokens').where({ user_id: cal.id })).length, 1, 'their token is kept, refused');
    const signIn = await t.request.post('/api/v1/auth/sign-in').send({ email: cal.email, password: 'correct horse battery' });
    assert.equal(signIn.status, 401);
    const disabledEvent = await t.db('kernel_events').where({ name: 'user.disabled' }).whereRaw("payload->>'user_id' = ?", [cal.id]).first();
    assert.equal(disabledEvent.actor_id, root.id);

    // Disabling again changes nothing: the first disabled_at stays, no second event.
    const again = await patch(cal.id, { disabled: true }).expect(200);
    assert.equal(again.body.disabled_at, res.body.disabled_at);
    assert.equal((await t.db('kernel_events').where({ name: 'user.disabled' }).whereRaw("payload->>'user_id' = ?", [cal.id])).length, 1);

    const listed = await t.request.get('/api/v1/admin/users?disabled=true').set(root.auth).expect(200);
    assert.ok(listed.body.data.some((u: { id: string }) => u.id === cal.id));
    assert.ok(listed.body.data.every((u: { disabled: boolean }) => u.disabled));
    const enabledOnly = await t.request.get('/api/v1/admin/users?disabled=false&limit=200').set(root.auth).expect(200);
    assert.ok(!enabledOnly.body.data.some((u: { id: string }) => u.id === cal.id));

    const enabled = await patch(cal.id, { disabled: false }).expect(200);
    assert.equal(enabled.body.disabled, false);
    assert.equal(enabled.body.disabled_at, null);
    assert.equal((await t.db('users').where({ id: cal.id }).first()).disabled_at, null);
    await t.request.get('/api/v1/workspaces').set(pat.auth).expect(200);
    assert.equal((await t.request.get('/api/v1/me').set(cal.auth)).status, 401, 'a deleted session does not come back');
    await t.request.post('/api/v1/auth/sign-in').send({ email: cal.email, password: 'correct horse battery' }).expect(200);
    const enabledEvent = await t.db('kernel_events').where({ name: 'user.enabled' }).whereRaw("payload->>'user_id' = ?", [cal.id]).first();
    assert.equal(enabledEvent.actor_id, root.id);
  });

  it('an admin can neither disable themselves nor drop their own admin flag (409)', async () => {
    const disable = await patch(root.id, { disabled: true }).expect(409);
    assert.equal(disable.body.code, 'self_change');
    const demote = await patch(root.id, { is_instance_admin: false }).expect(409);
    assert.equal(demote.body.code, 'self_change');
    const row = await t.db('users').where({ id: root.id }).first();
    assert.equal(row.is_instance_admin, true);
    assert.equal(row.disabled_at, null);
    await t.request.get('/api/v1/admin/users').set(root.auth).expect(200);
  });

  it('another admin can demote or disable an admin while one enabled admin remains', async () => {
    const dee = await signUp(t);
    await patch(dee.id, { is_instance_admin: true }).expect(200);
    await patch(root.id, { name: 'Root' }, dee.auth).expect(200);
    await patch(dee.id, { is_instance_admin: false }).expect(200);
    assert.equal((await t.request.get('/api/v1/admin/users').set(dee.auth)).status, 403);
  });

  it('refuses to disable or demote the last enabled instance admin (409)', async () => {
    // Reachable only by a request authenticated just before its caller lost admin rights: call the service as such a caller.
    const stale = await signUp(t);
    await onlyRootAdmin();
    assert.deepEqual(await enabledAdmins(), [root.id]);
    const principal = { kind: 'session', sessionId: 'stale', user: { id: stale.id, email: stale.email, name: stale.name, is_instance_admin: true } } as unknown as UserPrincipal;
    const users = t.container.resolverFor('admin')('admin.users');
    for (const body of [{ disabled: true }, { is_instance_admin: false }]) {
      await assert.rejects(users.update(principal, root.id, body), (err: unknown) => err instanceof AppError && err.status === 409 && err.code === 'last_instance_admin');
    }
    const row = await t.db('users').where({ id: root.id }).first();
    assert.equal(row.is_instance_admin, true);
    assert.equal(row.disabled_at, null);
  });

  it('two admins disabling each other at once leave exactly one enabled admin', async () => {
    await onlyRootAdmin();
    const eve = await signUp(t);
    const fay = await signUp(t);
    await patch(eve.id, { is_instance_admin: true }).expect(200);
    await patch(fay.id, { is_instance_admin: true }).expect(200);
    // Root steps aside so that eve and fay are the only enabled admins.
    await patch(root.id, { is_instance_admin: false }, eve.auth).expect(200);
    const [a, b] = await Promise.all([patch(fay.id, { disabled: true }, eve.auth), patch(eve.id, { disabled: true }, fay.auth)]);
    const statuses = [a.status, b.status].sort();
    assert.equal(statuses[0], 200, `one succeeds: ${statuses}`);
    assert.ok([401, 403, 409].includes(statuses[1]), `the other is refused: ${statuses}`);
    const admins = await enabledAdmins();
    assert.equal(admins.length, 1);
    assert.ok([eve.id, fay.id].includes(admins[0]));
    // Give root its rights back for the tests that follow.
    const survivor = admins[0] === eve.id ? eve : fay;
    await patch(root.id, { is_instance_admin: true }, survivor.auth).expect(200);
  });

  it('two admins demoting each other at once leave exactly one admin', async () => {
    await onlyRootAdmin();
    const gia = await signUp(t);
    const hal = await signUp(t);
    await patch(gia.id, { is_instance_admin: true }).expect(200);
    await patch(hal.id, { is_instance_admin: true }).expect(200);
    await patch(root.id, { is_instance_admin: false }, gia.auth).expect(200);
    const [a, b] = await Promise.all([patch(hal.id, { is_instance_admin: false }, gia.auth), patch(gia.id, { is_instance_admin: false }, hal.auth)]);
    const statuses = [a.status, b.status].sort();
    assert.equal(statuses[0], 200, `one succeeds: ${statuses}`);
    assert.ok([403, 409].includes(statuses[1]), `the other is refused: ${statuses}`);
    const admins = await enabledAdmins();
    assert.equal(admins.length, 1);
    const survivor = admins[0] === gia.id ? gia : hal;
    await patch(root.id, { is_instance_admin: true }, survivor.auth).expect(200);
  });

  it('validates the body: known properties only, at least one, right types', async () => {
    const gil = await signUp(t);
    for (const [body, pointer] of [
      [{ email: 'x@example.test' }, '/email'],
      [{ disabled: 'true' }, '/disabled'],
      [{ is_instance_admin: 1 }, '/is_instance_admin'],
      [{ name: '   ' }, '/name'],
    ] as const) {
      const res = await patch(gil.id, body).expect(422);
      assert.ok(res.body.errors.some((e: { pointer: string }) => e.pointer === pointer), `${JSON.stringify(body)} → ${JSON.stringify(res.body.errors)}`);
    }
    await patch(gil.id, {}).expect(422);
    const row = await t.db('users').where({ id: gil.id }).first();
    assert.equal(row.is_instance_admin, false);
    assert.equal(row.disabled_at, null);
  });
});
