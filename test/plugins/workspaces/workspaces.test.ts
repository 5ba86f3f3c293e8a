import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, signUp, type SignedUpUser } from '../../../core/testing.ts';

describe('workspaces', () => {
  let t: TestKernel;
  let ann: SignedUpUser;
  let bob: SignedUpUser;

  before(async () => {
    t = await startTestKernel();
    ann = await signUp(t);
    bob = await signUp(t);
  });
  after(() => t.stop());

  it('creates a workspace whose creator is its admin, listed only for members', async () => {
    const created = await t.request.post('/api/v1/workspaces').set(ann.auth).send({ name: '  Acme  ' });
    assert.equal(created.status, 201);
    assert.equal(created.body.name, 'Acme');
    assert.equal(created.body.role, 'admin');
    const mine = await t.request.get('/api/v1/workspaces').set(ann.auth);
    assert.deepEqual(mine.body.data.map((w: { id: string }) => w.id), [created.body.id]);
    const theirs = await t.request.get('/api/v1/workspaces').set(bob.auth);
    assert.deepEqual(theirs.body.data, []);
    assert.equal((await t.request.get(`/api/v1/workspaces/${created.body.id}`).set(bob.auth)).status, 404);
    const members = await t.request.get(`/api/v1/workspaces/${created.body.id}/members`).set(ann.auth);
    assert.deepEqual(members.body.data.map((m: { user_id: string; role: string }) => [m.user_id, m.role]), [[ann.id, 'admin']]);
  });

  it('refuses to remove or demote the last admin', async () => {
    const ws = (await t.request.post('/api/v1/workspaces').set(ann.auth).send({ name: 'Solo' })).body;
    const demote = await t.request.patch(`/api/v1/workspaces/${ws.id}/members/${ann.id}`).set(ann.auth).send({ role: 'editor' });
    assert.equal(demote.status, 409);
    assert.equal(demote.body.code, 'last_admin');
    const remove = await t.request.delete(`/api/v1/workspaces/${ws.id}/members/${ann.id}`).set(ann.auth);
    assert.equal(remove.status, 409);
    assert.equal(remove.body.code, 'last_admin');
    const members = await t.db('workspace_members').where({ workspace_id: ws.id });
    assert.deepEqual(members.map((m) => m.role), ['admin']);
  });
});
