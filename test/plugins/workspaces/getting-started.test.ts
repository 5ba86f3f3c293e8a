import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, createWorkspace, joinWorkspace, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { waitUntil } from '../../fixtures/wait.ts';
import { corePlugins, invite } from './fixtures.ts';

const KEYS = ['create_space', 'create_database', 'add_records', 'invite_member', 'create_token'];

describe('getting-started checklist', () => {
  let t: TestKernel;
  let ann: SignedUpUser;
  const path = (ws: string) => `/api/v1/workspaces/${ws}/getting-started`;
  const get = (ws: string, user: SignedUpUser) => t.request.get(path(ws)).set(user.auth);
  const patch = (ws: string, user: SignedUpUser, body: unknown) => t.request.patch(path(ws)).set(user.auth).send(body as object);
  const completed = (res: { body: { steps: Array<{ key: string; completed: boolean }> } }) => res.body.steps.filter((s) => s.completed).map((s) => s.key);

  before(async () => {
    t = await startTestKernel({ plugins: corePlugins });
    ann = await signUp(t);
  });
  after(() => t.stop());

  it('starts with every step open and nothing stored', async () => {
    const ws = await createWorkspace(t, ann);
    const res = await get(ws.id, ann);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.steps.map((s: { key: string }) => s.key), KEYS);
    assert.ok(res.body.steps.every((s: { title: string; completed: boolean }) => s.title.length > 0 && s.completed === false));
    assert.equal(res.body.completed_count, 0);
    assert.equal(res.body.total, KEYS.length);
    assert.equal(res.body.dismissed, false);
    assert.equal((await t.db('workspace_getting_started').where({ workspace_id: ws.id })).length, 0);
  });

  it('ticks, unticks and dismisses per user and workspace', async () => {
    const ws = await createWorkspace(t, ann);
    const bob = await signUp(t);
    await joinWorkspace(t, ann, ws.id, bob, 'member');
    const bobsOther = await createWorkspace(t, bob);

    const res = await patch(ws.id, bob, { completed: { add_records: true, create_token: true } });
    assert.equal(res.status, 200);
    assert.deepEqual(completed(res), ['add_records', 'create_token']);
    assert.equal(res.body.completed_count, 2);

    const next = await patch(ws.id, bob, { completed: { create_token: false }, dismissed: true });
    assert.deepEqual(completed(next), ['add_records']);
    assert.equal(next.body.dismissed, true);
    assert.deepEqual(completed(await get(ws.id, bob)), ['add_records']);
    assert.equal((await patch(ws.id, bob, { dismissed: false })).body.dismissed, false);

    assert.ok(!completed(await get(ws.id, ann)).includes('add_records'), 'another member has a checklist of their own');
    assert.deepEqual(completed(await get(bobsOther.id, bob)), [], 'another workspace has a checklist of its own');
  });

  it('refuses unknown steps and properties (422 with a pointer), and outsiders (404)', async () => {
    const ws = await createWorkspace(t, ann);
    const unknown = await patch(ws.id, ann, { completed: { learn_sql: true } });
    assert.equal(unknown.status, 422);
    assert.deepEqual(unknown.body.errors.map((e: { pointer: string }) => e.pointer), ['/completed/learn_sql']);
    const extra = await patch(ws.id, ann, { dismissed: true, hidden: true });
    assert.deepEqual(extra.body.errors.map((e: { pointer: string }) => e.pointer), ['/hidden']);
    assert.equal((await patch(ws.id, ann, { completed: { add_records: 'yes' } })).status, 422);
    assert.equal((await patch(ws.id, ann, {})).status, 422);
    assert.deepEqual(completed(await get(ws.id, ann)), []);
    assert.equal((await get(ws.id, ann)).body.dismissed, false);

    const stranger = await signUp(t);
    assert.equal((await get(ws.id, stranger)).status, 404);
    assert.equal((await patch(ws.id, stranger, { dismissed: true })).status, 404);
  });

  it('ticks a step by itself when its actor does the thing (space.created, invite.created)', async function () {
    this.timeout(30000);
    const ws = await createWorkspace(t, ann);
    const bob = await signUp(t);
    await joinWorkspace(t, ann, ws.id, bob, 'creator');

    await invite(t, ann, ws.id, { email: 'newcomer@example.test', role: 'member' });
    await waitUntil('invite_member to tick for the inviter', async () => completed(await get(ws.id, ann)).includes('invite_member'), 20000);

    // As the spaces plugin emits it: in the transaction that created the space, its creator as actor.
    await t.db.transaction((trx) => t.kernel.events.emit(trx, { name: 'space.created', workspaceId: ws.id, actorId: bob.id, payload: {} }));
    await waitUntil('create_space to tick for bob', async () => completed(await get(ws.id, bob)).includes('create_space'), 20000);
    assert.deepEqual(completed(await get(ws.id, bob)), ['create_space'], 'only the actor\'s own step');
    assert.deepEqual(completed(await get(ws.id, ann)), ['invite_member']);

    // Delivered again (at least once): nothing changes.
    await t.db.transaction((trx) => t.kernel.events.emit(trx, { name: 'space.created', workspaceId: ws.id, actorId: bob.id, payload: {} }));
    await t.db.transaction((trx) => t.kernel.events.emit(trx, { name: 'invite.created', workspaceId: ws.id, actorId: bob.id, payload: {} }));
    await waitUntil('bob\'s invite_member', async () => completed(await get(ws.id, bob)).includes('invite_member'), 20000);
    assert.deepEqual(completed(await get(ws.id, bob)), ['create_space', 'invite_member']);
  });

  it('ticks nothing for an actor who is not a member, and forgets a member\'s checklist when they leave', async function () {
    this.timeout(30000);
    const ws = await createWorkspace(t, ann);
    const cy = await signUp(t);
    await joinWorkspace(t, ann, ws.id, cy, 'member');
    await patch(ws.id, cy, { completed: { add_records: true } }).expect(200);
    await t.request.delete(`/api/v1/workspaces/${ws.id}/members/${cy.id}`).set(cy.auth).expect(204);
    assert.equal((await t.db('workspace_getting_started').where({ workspace_id: ws.id, user_id: cy.id })).length, 0);

    await t.db.transaction((trx) => t.kernel.events.emit(trx, { name: 'space.created', workspaceId: ws.id, actorId: cy.id, payload: {} }));
    // A later event for a member: once it shows, the earlier one has been handled.
    await t.db.transaction((trx) => t.kernel.events.emit(trx, { name: 'space.created', workspaceId: ws.id, actorId: ann.id, payload: {} }));
    await waitUntil('ann\'s create_space', async () => completed(await get(ws.id, ann)).includes('create_space'), 20000);
    await waitUntil('no delivery left to run', async () => {
      const { rows } = await t.db.raw(`SELECT count(*)::int AS n FROM ${t.storage.schema ? `"${t.storage.schema}_jobs"` : 'pgboss'}.job WHERE name = 'workspaces.events.getting-started' AND state NOT IN ('completed')`);
      return rows[0].n === 0;
    }, 20000);
    assert.equal((await t.db('workspace_getting_started').where({ workspace_id: ws.id, user_id: cy.id })).length, 0);
  });
});
