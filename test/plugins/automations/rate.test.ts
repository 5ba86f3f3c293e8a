import assert from 'node:assert/strict';
import { waitUntil } from '../../fixtures/wait.ts';
import { automationWorld, type AutomationWorld } from './world.ts';

describe('automations: the rate limit', function () {
  this.timeout(60000);
  let w: AutomationWorld;

  before(async () => {
    w = await automationWorld({ config: { jobs: { pollingIntervalSeconds: 0.5 }, plugins: { automations: { options: { maxRunsPerMinute: 3 } } } } });
  });
  after(() => w.t.stop());

  it('starts at most maxRunsPerMinute runs per workspace, counted in the shared table; the rest are canceled with the reason and write nothing', async () => {
    const made = (await w.t.request.post(w.api('/automations')).set(w.admin.auth).send({ name: 'R', database_id: w.db, enabled: true, trigger: { type: 'record_created' }, actions: [{ type: 'update_record', values: { note: 'ran' } }] }).expect(201)).body;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await w.t.request.post(w.api(`/databases/${w.db}/records`)).set(w.admin.auth).send({ values: { name: `r${i}` } }).expect(201)).body.id);
    await waitUntil('five runs to end', async () => (await w.t.db('automation_runs').where({ automation_id: made.id }).whereNotNull('finished_at')).length === 5, 20000);

    const runs = (await w.t.request.get(w.api(`/automations/${made.id}/runs`)).set(w.admin.auth).expect(200)).body.data as Array<{ status: string; reason: string | null; steps: unknown[] }>;
    assert.deepEqual(runs.map((r) => r.status).sort(), ['canceled', 'canceled', 'succeeded', 'succeeded', 'succeeded']);
    for (const r of runs.filter((r) => r.status === 'canceled')) {
      assert.match(r.reason!, /Rate limit/);
      assert.deepEqual(r.steps, []);
    }
    const notes = await Promise.all(ids.map(async (id) => (await w.t.request.get(w.api(`/databases/${w.db}/records/${id}`)).set(w.admin.auth).expect(200)).body.values.note));
    assert.equal(notes.filter((n) => n === 'ran').length, 3);
    // Every process counts in the same row: what makes the limit hold across instances.
    const [counter] = await w.t.db('automation_rate_counters').select('hits');
    assert.equal(counter.hits, 5);
  });
});
