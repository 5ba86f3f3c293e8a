import assert from 'node:assert/strict';
import { createWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';

describe('packs smoke', () => {
  let t: TestKernel;
  let admin: SignedUpUser;
  let ws: string;
  let other: string;
  before(async () => {
    t = await startTestKernel();
    admin = await signUp(t);
    ws = (await createWorkspace(t, admin)).id;
    other = (await createWorkspace(t, admin)).id;
  });
  after(() => t.stop());

  it('round trips', async () => {
    const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'Ops' }).expect(201)).body;
    const db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(admin.auth).send({ name: 'Tasks', space_id: space.id }).expect(201)).body;
    await t.request.post(`/api/v1/workspaces/${ws}/databases/${db.id}/fields`).set(admin.auth).send({ name: 'Status', type: 'single_select', options: { choices: [{ label: 'Todo' }, { label: 'Done', color: 'green' }] } }).expect(201);
    const pack = (await t.request.post(`/api/v1/workspaces/${ws}/packs/export`).set(admin.auth).send({ space_ids: [space.id] }).expect(200)).body;
    console.log(JSON.stringify(pack, null, 1));
    const dry = await t.request.post(`/api/v1/workspaces/${other}/packs/install`).set(admin.auth).send({ pack, dry_run: true });
    console.log(dry.status, JSON.stringify(dry.body));
    const res = await t.request.post(`/api/v1/workspaces/${other}/packs/install`).set(admin.auth).send({ pack });
    console.log(res.status, JSON.stringify(res.body));
    const again = (await t.request.post(`/api/v1/workspaces/${other}/packs/export`).set(admin.auth).send({ space_ids: [res.body.created.space[0].id] }).expect(200)).body;
    assert.deepEqual(again, pack);
    const un = await t.request.delete(`/api/v1/workspaces/${other}/packs/installs/${res.body.install_id}`).set(admin.auth);
    console.log(un.status, JSON.stringify(un.body));
  });
});
