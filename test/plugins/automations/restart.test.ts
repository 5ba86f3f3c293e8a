import assert from 'node:assert/strict';
import { newTestStorage, startTestKernel, type TestKernel } from '../../../core/testing.ts';
import { waitUntil } from '../../fixtures/wait.ts';
import { automationWorld } from './world.ts';

/**
 * A run outlives its process: the first kernel works no jobs (as if it stopped before its worker got there, or in the
 * middle of a run), the second, on the same storage, finishes what was left and redoes nothing.
 */
describe('automations: runs survive a restart', function () {
  this.timeout(120000);
  let second: TestKernel | undefined;
  after(() => second?.stop());

  it('a queued run and a run stopped after its first step finish on the next kernel; a write interrupted mid-step is not redone', async () => {
    const w = await automationWorld({ storage: newTestStorage(), config: { jobs: { enabled: false } } });
    const create = (name: string, actions: object[]) => w.t.request.post(w.api('/automations')).set(w.admin.auth).send({ name, database_id: w.db, enabled: true, trigger: { type: 'record_created' }, conditions: { field: 'name', op: 'eq', value: name }, actions }).expect(201);
    const record = async (name: string) => (await w.t.request.post(w.api(`/databases/${w.db}/records`)).set(w.admin.auth).send({ values: { name } }).expect(201)).body.id as string;

    const queued = (await create('queued', [{ type: 'update_record', values: { note: 'queued ran' } }])).body.id;
    const midway = (await create('midway', [{ type: 'update_record', values: { stage: 'first' } }, { type: 'update_record', values: { note: 'second ran' } }])).body.id;
    const interrupted = (await create('interrupted', [{ type: 'update_record', values: { note: 'must not run' } }])).body.id;
    const queuedRecord = await record('queued');
    const midwayRecord = await record('midway');
    const interruptedRecord = await record('interrupted');
    const at = new Date().toISOString();
    // The state a stopped process leaves: the first step done (midway), a step started and never finished (interrupted).
    await w.t.db('automation_runs').where({ automation_id: midway }).update({ status: 'running', steps: JSON.stringify([{ action: 'update_record', status: 'succeeded', output: null, error: null, started_at: at, finished_at: at }]) });
    await w.t.db('automation_runs').where({ automation_id: interrupted }).update({ status: 'running', steps: JSON.stringify([{ action: 'update_record', status: 'running', output: null, error: null, started_at: at, finished_at: null }]) });
    assert.deepEqual((await w.t.db('automation_runs').whereIn('automation_id', [queued, midway, interrupted]).select('status')).map((r) => r.status).sort(), ['queued', 'running', 'running']);
    await w.t.stop({ keep: true });

    second = await startTestKernel({ storage: w.t.storage });
    const t = second;
    const runOf = (automation: string) => t.db('automation_runs').where({ automation_id: automation }).first('status', 'steps', 'finished_at');
    await waitUntil('the three runs to end', async () => {
      const runs = await Promise.all([queued, midway, interrupted].map(runOf));
      return runs.every((r) => r && r.finished_at);
    }, 30000);
    const values = async (id: string) => (await t.request.get(`/api/v1/workspaces/${w.ws}/databases/${w.db}/records/${id}`).set(w.admin.auth).expect(200)).body.values;

    assert.equal((await runOf(queued)).status, 'succeeded');
    assert.equal((await values(queuedRecord)).note, 'queued ran');

    const mid = await runOf(midway);
    assert.equal(mid.status, 'succeeded');
    assert.deepEqual(mid.steps.map((s: { status: string }) => s.status), ['succeeded', 'succeeded']);
    const midValues = await values(midwayRecord);
    assert.equal(midValues.note, 'second ran');
    assert.equal(midValues.stage, null, 'the step recorded as done was not done again');

    const cut = await runOf(interrupted);
    assert.equal(cut.status, 'failed');
    assert.match(cut.steps[0].error, /Interrupted/);
    assert.equal((await values(interruptedRecord)).note, null);
  });
});
