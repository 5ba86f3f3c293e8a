import assert from 'node:assert/strict';
import { createWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { createPostgresPlugin } from '../../../plugins/integration-postgres/index.ts';
import { TEST_DATABASE_URL } from './fixture.ts';

/** The plugin in a kernel: its provider listed by the integrations plugin, its address rule on by default. */
describe('integration-postgres: in a kernel', () => {
  let t: TestKernel;
  let admin: SignedUpUser;
  let ws: string;

  before(async () => {
    t = await startTestKernel({ plugins: [createPostgresPlugin()] });
    admin = await signUp(t);
    ws = (await createWorkspace(t, admin)).id;
  });
  after(() => t.stop());

  it('is listed as a database provider that sources can read through', async () => {
    const res = await t.request.get('/api/v1/integrations').set(admin.auth);
    assert.equal(res.status, 200);
    const postgres = res.body.data.find((p: { id: string }) => p.id === 'postgres');
    assert.deepEqual(postgres, {
      id: 'postgres',
      name: 'PostgreSQL',
      categories: ['database'],
      auth: { type: 'api_key', fields: [{ name: 'url', label: 'Connection URL (postgres://user:password@host:port/database)', secret: true }] },
      capabilities: ['sources'],
      events: [],
      configured: true,
    });
  });

  it('refuses a connection to this server\'s own database while allowPrivateNetworks is off (the default)', async () => {
    const url = TEST_DATABASE_URL.replace('postgres@', 'postgres:Pa55word-kept-secret@');
    const res = await t.request.post(`/api/v1/workspaces/${ws}/connections`).set(admin.auth).send({ provider: 'postgres', name: 'Own', credentials: { url } });
    assert.equal(res.status, 422);
    assert.match(res.body.detail, /127\.0\.0\.1 is a loopback, private, link-local/);
    assert.doesNotMatch(res.text, /Pa55word-kept-secret/);
  });
});
