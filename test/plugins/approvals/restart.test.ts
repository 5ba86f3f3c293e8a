import assert from 'node:assert/strict';
import { newTestStorage, startTestKernel, type TestKernel } from '../../../core/testing.ts';
import { waitUntil } from '../../fixtures/wait.ts';
import { automationWorld } from '../automations/world.ts';

/** A run waiting for approval outlives its process: the approval is decided, or expires, on the next kernel. */
describe('approvals: a waiting run survives a restart', function () {
  this.timeout(120000);
  let second: TestKernel | undefined;
  after(() => second?.stop());

  it('approved on the next kernel, the run goes on; expired there, it fails', async () => {
    const w = await automationWorld({ storage: newTestStorage(), config: { jobs: { pollingIntervalSeconds: 0.5 } } });
    const automation = async (name: string) =>
      (
        await w.t.request
          .post(w.api('/automations'))
          .set(w.admin.auth)
          .send({ name, database_id: w.db, enabled: true, trigger: { type: 'record_created' }, conditions: { field: 'name', op: 'eq', value: name }, actions: [{ type: 'request_approval', approver_ids: [w.editor.id], text: 'OK?' }, { type: 'update_record', values: { note: 'went on' } }] })
          .expect(201)
      ).body.id as string;
    const approved = await automation('approved');
    const expired = await automation('expired');
    const records: Record<string, string> = {};
    for (const name of ['approved', 'expired']) records[name] = (await w.t.request.post(w.api(`/databases/${w.db}/records`)).set(w.admin.auth).send({ values: { name } }).expect(201)).body.id;
    const statuses = (t: TestKernel) => t.db('automation_runs').whereIn('automation_id', [approved, expired]).pluck('status');
    await waitUntil('both runs to wait', async () => (await statuses(w.t)).filter((s) => s === 'waiting_for_approval').length === 2, 20000);
    await w.t.stop({ keep: true });

    second = await startTestKernel({ storage: w.t.storage, config: { jobs: { pollingIntervalSeconds: 0.5 } } });
    const t = second;
    const approvalOf = async (automationId: string) => (await t.db('approvals').where({ automation_id: automationId }).first('id')).id as string;
    await t.request.post(`/api/v1/workspaces/${w.ws}/approvals/${await approvalOf(approved)}/approve`).set(w.editor.auth).expect(200);
    await t.db('approvals').where({ id: await approvalOf(expired) }).update({ expires_at: t.db.raw("now() - interval '1 second'") });
    assert.equal(await t.container.resolverFor('approvals')('approvals.service').expireDue(), 1);

    const runOf = (automationId: string) => t.db('automation_runs').where({ automation_id: automationId }).first('status', 'finished_at');
    await waitUntil('both runs to end', async () => (await runOf(approved)).finished_at && (await runOf(expired)).finished_at, 20000);
    assert.equal((await runOf(approved)).status, 'succeeded');
    assert.equal((await runOf(expired)).status, 'failed');
    const note = async (name: string) => (await t.request.get(`/api/v1/workspaces/${w.ws}/databases/${w.db}/records/${records[name]}`).set(w.admin.auth).expect(200)).body.values.note;
    assert.equal(await note('approved'), 'went on');
    assert.equal(await note('expired'), null);
  });
});
