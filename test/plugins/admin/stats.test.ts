import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, signUp } from '../../../core/testing.ts';
import { builtinPlugins } from '../../../plugins/index.ts';
import system from '../../../plugins/system/index.ts';
import auth from '../../../plugins/auth/index.ts';
import tokens from '../../../plugins/tokens/index.ts';
import users from '../../../plugins/users/index.ts';
import admin from '../../../plugins/admin/index.ts';
import { patOf } from './helpers.ts';

describe('admin: GET /admin/stats', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel();
  });
  after(() => t.stop());

  it('counts users, live sessions, tokens, workspaces and plugins', async () => {
    const root = await signUp(t);
    const ann = await signUp(t);
    const bob = await signUp(t);
    await patOf(t, ann); // one workspace, one token
    await t.request.patch(`/api/v1/admin/users/${bob.id}`).set(root.auth).send({ disabled: true }).expect(200);
    // An expired session is not active.
    await t.db('sessions').insert({ user_id: ann.id, token_hash: 'expired', expires_at: new Date(Date.now() - 1000) });

    const res = await t.request.get('/api/v1/admin/stats').set(root.auth).expect(200);
    const on = builtinPlugins.filter((p) => p.enabledByDefault !== false).length;
    assert.deepEqual(res.body, {
      users: { total: 3, disabled: 1, instance_admins: 1 },
      sessions: { active: 2 },
      tokens: { total: 1 },
      workspaces: { total: 1 },
      plugins: { active: on, disabled: builtinPlugins.length - on, failed: 0 },
      database: { kind: process.env.DATABASE_URL ? 'postgres' : 'pglite' },
    });
  });
});

describe('admin without the workspaces plugin', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: [system, auth, tokens, users, admin] });
  });
  after(() => t.stop());

  it('reports null workspace counts and has no workspace routes', async () => {
    const root = await signUp(t);
    const users = await t.request.get('/api/v1/admin/users').set(root.auth).expect(200);
    assert.equal(users.body.data[0].workspace_count, null);
    assert.equal((await t.request.get(`/api/v1/admin/users/${root.id}`).set(root.auth).expect(200)).body.workspace_count, null);
    const stats = await t.request.get('/api/v1/admin/stats').set(root.auth).expect(200);
    assert.equal(stats.body.workspaces, null);
    assert.deepEqual(stats.body.plugins, { active: 5, disabled: 0, failed: 0 });
    assert.equal((await t.request.get('/api/v1/admin/workspaces').set(root.auth)).status, 404);
    const doc = (await t.request.get('/api/v1/openapi.json').expect(200)).body;
    assert.equal(doc.paths['/api/v1/admin/workspaces'], undefined);
    assert.ok(doc.paths['/api/v1/admin/stats']);
  });
});
