import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { createWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from 'tessera/testing';

const PLUGIN_DIR = fileURLToPath(new URL('..', import.meta.url));

/** The action loaded the way a self-hoster enables it, by `resolve`, beside the built-in plugins. */
describe('echo automation action (examples/echo-action)', function () {
  this.timeout(30000);
  let t: TestKernel;
  let admin: SignedUpUser;
  let ws: string;
  let db: string;

  before(async () => {
    t = await startTestKernel({ config: { plugins: { 'echo-action': { resolve: PLUGIN_DIR } } } });
    admin = await signUp(t);
    ws = (await createWorkspace(t, admin)).id;
    const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
    db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(admin.auth).send({ name: 'Deals', space_id: space }).expect(201)).body.id;
  });
  after(() => t.stop());

  it('checks its config at save, runs with placeholders filled, and answers what it would do in a dry run', async () => {
    const bad = await t.request.post(`/api/v1/workspaces/${ws}/automations`).set(admin.auth).send({ name: 'E', database_id: db, trigger: { type: 'record_created' }, actions: [{ type: 'echo' }], enabled: true }).expect(422);
    assert.ok(bad.body.errors.some((e: { pointer: string }) => e.pointer === '/actions/0/text'), JSON.stringify(bad.body.errors));
    const a = (await t.request.post(`/api/v1/workspaces/${ws}/automations`).set(admin.auth).send({ name: 'E', database_id: db, trigger: { type: 'record_created' }, actions: [{ type: 'echo', text: 'New deal {{record.name}}' }], enabled: true }).expect(201)).body;
    const record = (await t.request.post(`/api/v1/workspaces/${ws}/databases/${db}/records`).set(admin.auth).send({ values: { name: 'Acme' } }).expect(201)).body;
    const deadline = Date.now() + 20000;
    let run: { status: string; steps: Array<{ action: string; output: unknown }> } | undefined;
    while (Date.now() < deadline) {
      run = (await t.request.get(`/api/v1/workspaces/${ws}/automations/${a.id}/runs`).set(admin.auth).expect(200)).body.data[0];
      if (run && run.status === 'succeeded') break;
      await new Promise((ok) => setTimeout(ok, 100));
    }
    assert.equal(run?.status, 'succeeded');
    assert.deepEqual(run!.steps.map((s) => [s.action, s.output]), [['echo', { text: 'New deal Acme' }]]);
    const dry = await t.request.post(`/api/v1/workspaces/${ws}/automations/${a.id}/dry-run`).set(admin.auth).send({ record_id: record.id }).expect(200);
    assert.deepEqual(dry.body, { matched: true, steps: [{ action: 'echo', would: { text: 'New deal Acme' } }] });
  });
});
