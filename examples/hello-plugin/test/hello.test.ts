import assert from 'node:assert/strict';
import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from 'tessera/testing';
import plugin from '../index.ts';

/**
 * The plugin booted with only what it needs (its dependencies come along): a real kernel, real storage, real
 * HTTP. Assert what a user would notice: statuses, bodies, what is stored and what is not.
 */
describe('hello plugin', () => {
  let t: TestKernel;
  let admin: SignedUpUser;
  let member: SignedUpUser;
  let ws: string;
  const greetings = () => `/api/v1/workspaces/${ws}/hello/greetings`;
  const stored = async () => Number((await t.db('hello_greetings').where({ workspace_id: ws }).count({ n: '*' }).first())!.n);

  before(async () => {
    t = await startTestKernel({ plugins: [plugin] });
    admin = await signUp(t);
    member = await signUp(t);
    ws = (await createWorkspace(t, admin)).id;
    await joinWorkspace(t, admin, ws, member, 'member');
  });
  after(() => t.stop());

  it('stores a member\'s greeting in the workspace and lists it to the other members', async () => {
    const created = await t.request.post(greetings()).set(member.auth).send({ name: 'Ada' }).expect(201);
    assert.equal(created.body.message, 'Hello, Ada!');
    assert.equal(created.body.created_by, member.id);
    const list = await t.request.get(greetings()).set(admin.auth).expect(200);
    assert.deepEqual(list.body.data.map((g: { id: string }) => g.id), [created.body.id]);
  });

  it('refuses a name the member already greeted here, whatever its case, with already_greeted and nothing stored', async () => {
    await t.request.post(greetings()).set(member.auth).send({ name: 'Grace' }).expect(201);
    const before = await stored();
    const again = await t.request.post(greetings()).set(member.auth).send({ name: 'GRACE' }).expect(409);
    assert.equal(again.body.code, 'already_greeted');
    assert.equal(await stored(), before);
    // Another member may greet the same name.
    await t.request.post(greetings()).set(admin.auth).send({ name: 'Grace' }).expect(201);
  });

  it('refuses a body its schema does not allow, storing nothing', async () => {
    const before = await stored();
    const res = await t.request.post(greetings()).set(member.auth).send({ name: '' }).expect(422);
    assert.equal(res.body.code, 'validation_failed');
    assert.equal(res.body.errors[0].pointer, '/name');
    assert.equal(await stored(), before);
  });

  it('hides the workspace from non-members and anonymous callers', async () => {
    const stranger = await signUp(t);
    await t.request.get(greetings()).set(stranger.auth).expect(404);
    await t.request.post(greetings()).set(stranger.auth).send({ name: 'Eve' }).expect(404);
    await t.request.get(greetings()).expect(401);
  });

  it('lets the author or an admin delete a greeting, and no other member', async () => {
    const other = await signUp(t);
    await joinWorkspace(t, admin, ws, other, 'editor');
    const mine = (await t.request.post(greetings()).set(member.auth).send({ name: 'Linus' }).expect(201)).body.id;
    await t.request.delete(`${greetings()}/${mine}`).set(other.auth).expect(403);
    await t.request.delete(`${greetings()}/${mine}`).set(member.auth).expect(204);
    await t.request.get(`${greetings()}/${mine}`).set(member.auth).expect(404);
    const theirs = (await t.request.post(greetings()).set(other.auth).send({ name: 'Linus' }).expect(201)).body.id;
    await t.request.delete(`${greetings()}/${theirs}`).set(admin.auth).expect(204);
  });

  it('takes a member\'s greetings along when the member is removed, and keeps everyone else\'s', async () => {
    const leaver = await signUp(t);
    await joinWorkspace(t, admin, ws, leaver, 'member');
    await t.request.post(greetings()).set(leaver.auth).send({ name: 'Bye' }).expect(201);
    const othersBefore = await t.db('hello_greetings').where({ workspace_id: ws }).whereNot({ created_by: leaver.id }).pluck('id');
    await t.request.delete(`/api/v1/workspaces/${ws}/members/${leaver.id}`).set(admin.auth).expect(204);
    assert.deepEqual(await t.db('hello_greetings').where({ created_by: leaver.id }).pluck('id'), []);
    assert.deepEqual((await t.db('hello_greetings').where({ workspace_id: ws }).pluck('id')).sort(), othersBefore.sort());
  });
});

/** Greetings as a kind of pack resource: exported when asked for, installed elsewhere, removed on uninstall. */
describe('hello plugin in packs', () => {
  let t: TestKernel;
  let admin: SignedUpUser;
  let home: string;
  let away: string;
  const api = (ws: string, path: string) => `/api/v1/workspaces/${ws}${path}`;

  before(async () => {
    t = await startTestKernel({ plugins: [plugin], also: ['packs'] });
    admin = await signUp(t);
    home = (await createWorkspace(t, admin)).id;
    away = (await createWorkspace(t, admin)).id;
  });
  after(() => t.stop());

  it('declares its kind of resource and travels only when asked for', async () => {
    const kinds = (await t.request.get('/api/v1/packs/kinds').set(admin.auth).expect(200)).body.data;
    assert.deepEqual(kinds.find((k: { kind: string }) => k.kind === 'hello_greeting'), { kind: 'hello_greeting', plugin: 'hello', after: [], optional: true });
    for (const name of ['Ada', 'Grace']) await t.request.post(api(home, '/hello/greetings')).set(admin.auth).send({ name }).expect(201);
    const pack = (await t.request.post(api(home, '/packs/export')).set(admin.auth).send({ include: ['hello_greeting'], name: 'Greetings' }).expect(200)).body;
    assert.deepEqual(pack.resources, { hello_greeting: [{ ref: 'hello_greeting_1', name: 'Ada' }, { ref: 'hello_greeting_2', name: 'Grace' }] });
    assert.deepEqual(Object.keys(pack.requires), ['hello']);

    const installed = await t.request.post(api(away, '/packs/install')).set(admin.auth).send({ pack }).expect(201);
    const list = (await t.request.get(api(away, '/hello/greetings')).set(admin.auth).expect(200)).body.data;
    assert.deepEqual(list.map((g: { message: string }) => g.message).sort(), ['Hello, Ada!', 'Hello, Grace!']);
    // Installed again: nobody is greeted twice, and the plan says so.
    const again = await t.request.post(api(away, '/packs/install')).set(admin.auth).send({ pack, dry_run: true }).expect(200);
    assert.deepEqual(again.body.plan.map((s: { action: string }) => s.action), ['reuse', 'reuse']);

    const removed = await t.request.delete(api(away, `/packs/installs/${installed.body.install_id}`)).set(admin.auth).expect(200);
    assert.equal(removed.body.removed.length, 2);
    assert.deepEqual((await t.request.get(api(away, '/hello/greetings')).set(admin.auth).expect(200)).body.data, []);
  });
});
