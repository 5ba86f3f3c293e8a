import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { definePlugin } from '../../../core/plugin.ts';
import { builtinPlugins } from '../../../plugins/index.ts';
import { createPat } from '../tokens/helpers.ts';

describe('admin: GET /admin/plugins', () => {
  const dormant = definePlugin({ id: 'dormant', version: '0.3.1', kernel: '^1.0.0', enabledByDefault: false });
  let t: TestKernel;
  let root: SignedUpUser;
  let member: SignedUpUser;

  before(async () => {
    t = await startTestKernel({ plugins: [...builtinPlugins, dormant] });
    root = await signUp(t); // the first user of an instance is its instance admin
    member = await signUp(t);
  });
  after(() => t.stop());

  it('lists every known plugin, sorted by id, with version, enabled, state and failure', async () => {
    const res = await t.request.get('/api/v1/admin/plugins').set(root.auth).expect(200);
    assert.equal(res.body.next_cursor, null);
    const expected = [
      // Built-ins are on unless off by default (blobs-s3, until configured).
      ...builtinPlugins.map((p) => ({ id: p.id, version: p.version, enabled: p.enabledByDefault ?? true, state: (p.enabledByDefault ?? true) ? 'active' : 'disabled', failure: null })),
      { id: 'dormant', version: '0.3.1', enabled: false, state: 'disabled', failure: null },
    ].sort((a, b) => a.id.localeCompare(b.id));
    assert.deepEqual(res.body.data, expected);
    assert.ok(res.body.data.some((p: { id: string }) => p.id === 'admin'));
  });

  it('answers 401 without a credential and 403 to a user who is not an instance admin', async () => {
    const anonymous = await t.request.get('/api/v1/admin/plugins').expect(401);
    assert.equal(anonymous.body.code, 'unauthenticated');
    const res = await t.request.get('/api/v1/admin/plugins').set(member.auth).expect(403);
    assert.equal(res.body.code, 'forbidden');
    assert.equal(res.body.data, undefined);
  });

  it('refuses the instance admin\'s personal access token: admin routes need a session', async () => {
    const ws = await t.request.post('/api/v1/workspaces').set(root.auth).send({ name: 'Ops' }).expect(201);
    const pat = await createPat(t, root, { scope: 'admin', workspace_id: ws.body.id });
    const res = await t.request.get('/api/v1/admin/plugins').set(pat.auth).expect(403);
    assert.equal(res.body.code, 'forbidden');
  });

  it('is documented in the OpenAPI document as an instance-admin route', async () => {
    const doc = await t.request.get('/api/v1/openapi.json').expect(200);
    const op = doc.body.paths['/api/v1/admin/plugins'].get;
    assert.equal(op['x-tessera-auth'], 'instance_admin');
    assert.deepEqual(op.tags, ['admin']);
    assert.ok(op.responses['200'].content['application/json'].schema.properties.data);
  });
});
