import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { collect, createWorkspace } from './helpers.ts';

describe('admin: workspaces', () => {
  let t: TestKernel;
  let root: SignedUpUser;
  let ann: SignedUpUser;

  before(async () => {
    t = await startTestKernel();
    root = await signUp(t); // the first user of an instance is its instance admin
    ann = await signUp(t);
  });
  after(() => t.stop());

  it('lists every workspace, newest first, with its creator and member count, members or not', async () => {
    const older = await createWorkspace(t, ann, 'Older');
    await t.db('workspace_members').insert({ workspace_id: older.id, user_id: root.id, role: 'editor' });
    const newer = await createWorkspace(t, ann, 'Newer');
    const res = await t.request.get('/api/v1/admin/workspaces').set(root.auth).expect(200);
    const rows = res.body.data.map((w: Record<string, unknown>) => ({ ...w, created_at: typeof w.created_at }));
    assert.deepEqual(rows.slice(0, 2), [
      { id: newer.id, name: 'Newer', created_by: ann.id, created_at: 'string', member_count: 1 },
      { id: older.id, name: 'Older', created_by: ann.id, created_at: 'string', member_count: 2 },
    ]);
  });

  it('searches names case-insensitively as a substring', async () => {
    const hit = await createWorkspace(t, ann, 'Quarterly Planning');
    await createWorkspace(t, ann, 'Other');
    const res = await t.request.get('/api/v1/admin/workspaces?q=RLY%20PLAN').set(root.auth).expect(200);
    assert.deepEqual(res.body.data.map((w: { id: string }) => w.id), [hit.id]);
  });

  it('pages through every workspace once', async () => {
    for (let i = 0; i < 3; i++) await createWorkspace(t, ann, `Paged ${i}`);
    const all = (await t.request.get('/api/v1/admin/workspaces?limit=200').set(root.auth).expect(200)).body.data;
    const paged = await collect<{ id: string }>(t, root.auth, '/api/v1/admin/workspaces', 2);
    assert.deepEqual(paged.map((w) => w.id), all.map((w: { id: string }) => w.id));
  });

  it('gets one workspace; an unknown id is 404', async () => {
    const ws = await createWorkspace(t, ann, 'Single');
    const res = await t.request.get(`/api/v1/admin/workspaces/${ws.id}`).set(root.auth).expect(200);
    assert.equal(res.body.name, 'Single');
    assert.equal(res.body.member_count, 1);
    const missing = await t.request.get('/api/v1/admin/workspaces/00000000-0000-4000-8000-000000000000').set(root.auth);
    assert.equal(missing.status, 404);
  });
});
