import assert from 'node:assert/strict';
import { definePlugin } from '../../../core/plugin.ts';
import { createWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { AppError } from '../../../core/errors.ts';
import type { RecordsTrashMoved } from '../../../plugins/records/public.ts';

/** A plugin keeping something about records, as comments or activity will: it hears records enter and leave the trash. */
function trashProbe() {
  const heard: Array<{ stage: string; recordIds: string[]; actor: string; inTransaction: boolean }> = [];
  const refused = new Set<string>();
  const note = (stage: string) => async ({ trx, recordIds, actor }: RecordsTrashMoved) => {
    heard.push({ stage, recordIds: [...recordIds].sort(), actor: actor.user.id, inTransaction: (trx as { isTransaction?: boolean }).isTransaction === true });
    if (recordIds.some((id) => refused.has(id))) throw new AppError({ status: 409, code: 'probe_refused', title: 'Conflict', detail: 'The probe keeps this record.' });
  };
  const plugin = definePlugin({
    id: 'trash-probe',
    version: '1.0.0',
    kernel: '^1.0.0',
    dependsOn: { records: '^1.0.0' },
    register(ctx) {
      const lifecycle = ctx.hooksOf('records.lifecycle');
      lifecycle.trashed.tapPromise('trash-probe', note('trashed'));
      lifecycle.restored.tapPromise('trash-probe', note('restored'));
    },
  });
  return { plugin, heard, refused };
}

describe('records.lifecycle: trashed and restored', () => {
  const probe = trashProbe();
  let t: TestKernel;
  let admin: SignedUpUser;
  let records: string;
  const create = async (n: number) =>
    ((await t.request.post(records).set(admin.auth).send({ records: Array.from({ length: n }, () => ({ values: {} })) }).expect(201)).body.data as Array<{ id: string }>).map((r) => r.id);
  const live = async () => ((await t.request.get(records).set(admin.auth).expect(200)).body.data as Array<{ id: string }>).map((r) => r.id);

  before(async () => {
    t = await startTestKernel({ plugins: [probe.plugin] });
    admin = await signUp(t);
    const ws = (await createWorkspace(t, admin)).id;
    const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
    const db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(admin.auth).send({ name: 'D', space_id: space }).expect(201)).body.id;
    records = `/api/v1/workspaces/${ws}/databases/${db}/records`;
  });
  after(() => t.stop());
  beforeEach(() => {
    probe.heard.length = 0;
    probe.refused.clear();
  });

  it('tells a single delete, a bulk delete and a restore once each, with the records moved and who moved them, inside the change', async () => {
    const [one, two, three, gone] = await create(4);
    await t.request.delete(`${records}/${one}`).set(admin.auth).expect(204);
    await t.request.post(`${records}/delete`).set(admin.auth).send({ ids: [two, three, one] }).expect(200);
    await t.request.post(`${records}/restore`).set(admin.auth).send({ ids: [one, two, gone] }).expect(200);
    assert.deepEqual(probe.heard, [
      { stage: 'trashed', recordIds: [one], actor: admin.id, inTransaction: true },
      { stage: 'trashed', recordIds: [three, two].sort(), actor: admin.id, inTransaction: true },
      { stage: 'restored', recordIds: [one, two].sort(), actor: admin.id, inTransaction: true },
    ]);
  });

  it('says nothing when a bulk call moves no record', async () => {
    const [kept] = await create(1);
    await t.request.post(`${records}/restore`).set(admin.auth).send({ ids: [kept] }).expect(200);
    assert.deepEqual(probe.heard, []);
  });

  it('undoes the move when a tap refuses it', async () => {
    const [kept, other] = await create(2);
    probe.refused.add(kept);
    const res = await t.request.post(`${records}/delete`).set(admin.auth).send({ ids: [other, kept] }).expect(409);
    assert.equal(res.body.code, 'probe_refused');
    await t.request.delete(`${records}/${kept}`).set(admin.auth).expect(409);
    const still = await live();
    assert.ok(still.includes(kept) && still.includes(other), 'both records are still live');
  });
});
