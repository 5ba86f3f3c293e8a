import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { createWorkspace, patOf } from './helpers.ts';

describe('admin: who may call the admin routes', () => {
  let t: TestKernel;
  let root: SignedUpUser;
  let member: SignedUpUser;
  let routes: Array<[string, string, object?]>;

  before(async () => {
    t = await startTestKernel();
    root = await signUp(t); // the first user of an instance is its instance admin
    member = await signUp(t);
    const ws = await createWorkspace(t, member);
    routes = [
      ['get', '/api/v1/admin/plugins'],
      ['get', '/api/v1/admin/users'],
      ['get', `/api/v1/admin/users/${member.id}`],
      ['patch', `/api/v1/admin/users/${member.id}`, { disabled: true }],
      ['get', '/api/v1/admin/workspaces'],
      ['get', `/api/v1/admin/workspaces/${ws.id}`],
      ['get', '/api/v1/admin/stats'],
    ];
  });
  after(() => t.stop());

  const call = (method: string, path: string, body?: object) => {
    const req = (t.request as unknown as Record<string, (p: string) => import('supertest').Test>)[method](path);
    return body ? req.send(body) : req;
  };

  it('anonymous → 401', async () => {
    for (const [method, path, body] of routes) {
      const res = await call(method, path, body);
      assert.equal(res.status, 401, `${method} ${path}`);
      assert.equal(res.body.code, 'unauthenticated');
    }
  });

  it('a session of a user who is not an instance admin → 403', async () => {
    for (const [method, path, body] of routes) {
      const res = await call(method, path, body).set(member.auth);
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.code, 'forbidden');
    }
    assert.equal((await t.db('users').where({ id: member.id }).first()).disabled_at, null);
  });

  it('a personal access token of an instance admin, even of admin scope → 403', async () => {
    const pat = await patOf(t, root, 'admin');
    for (const [method, path, body] of routes) {
      const res = await call(method, path, body).set(pat.auth);
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.code, 'forbidden');
    }
    assert.equal((await t.db('users').where({ id: member.id }).first()).disabled_at, null);
  });

  it('an instance admin\'s session → 200', async () => {
    for (const [method, path] of routes.filter(([m]) => m === 'get')) {
      assert.equal((await call(method, path).set(root.auth)).status, 200, path);
    }
  });

  it('documents every admin route as instance-admin only', async () => {
    const doc = (await t.request.get('/api/v1/openapi.json').expect(200)).body;
    for (const [method, path] of routes) {
      const template = path.replace(/[0-9a-f-]{36}$/, '{id}');
      const op = doc.paths[template]?.[method];
      assert.ok(op, `${method} ${template} documented`);
      assert.equal(op['x-tessera-auth'], 'instance_admin');
    }
  });
});
