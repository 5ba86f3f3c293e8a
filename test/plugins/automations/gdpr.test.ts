import assert from 'node:assert/strict';
import { joinWorkspace, signUp } from '../../../core/testing.ts';
import { waitUntil } from '../../fixtures/wait.ts';
import { finished, unzipJson } from '../gdpr/helpers.ts';
import { automationWorld, type AutomationWorld } from './world.ts';

describe('automations: personal data', function () {
  this.timeout(60000);
  let w: AutomationWorld;

  before(async () => {
    w = await automationWorld({ config: { jobs: { pollingIntervalSeconds: 0.5 } } });
  });
  after(() => w.t.stop());

  it('exports the automations a member made and the runs they started; erasing them keeps both without them', async () => {
    const mia = await signUp(w.t, { name: 'Mia Member' });
    await joinWorkspace(w.t, w.admin, w.ws, mia, 'admin');
    const made = (await w.t.request.post(w.api('/automations')).set(mia.auth).send({ name: 'Mia’s rule', database_id: w.db, enabled: true, trigger: { type: 'record_created' }, actions: [{ type: 'update_record', values: { stage: 'seen by {{record.note}}' } }] }).expect(201)).body;
    // Her id as a cell and inside a text: the run's trigger carries both.
    await w.t.request.post(w.api(`/databases/${w.db}/records`)).set(mia.auth).send({ values: { name: `hers, ${mia.id}`, note: mia.id } }).expect(201);
    await w.t.request.post(w.api(`/databases/${w.db}/records`)).set(w.admin.auth).send({ values: { name: 'not hers' } }).expect(201);
    await waitUntil('both runs to end', async () => (await w.t.db('automation_runs').where({ automation_id: made.id }).whereNotNull('finished_at')).length === 2, 20000);

    const queued = (await w.t.request.post(w.api(`/members/${mia.id}/data-export`)).set(w.admin.auth).expect(202)).body.id;
    const done = await finished(w.t, w.api(`/data-exports/${queued}`), w.admin.auth);
    const zip = await w.t.request.get(done.download_url!).set(w.admin.auth).buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    const files = unzipJson(zip.body as Buffer);
    assert.deepEqual((files['automations.json'] as Array<{ id: string; name: string }>).map((a) => [a.id, a.name]), [[made.id, 'Mia’s rule']]);
    assert.equal((files['automation_runs.json'] as unknown[]).length, 1, 'only the run her write started');

    const receipt = (await w.t.request.post(w.api(`/members/${mia.id}/erase`)).set(w.admin.auth).send({ confirm: mia.email }).expect(200)).body;
    const report = receipt.reports.find((r: { kind: string }) => r.kind === 'automations');
    assert.deepEqual([report.deleted, report.pseudonymised], [0, 2], 'her automation, and the run that named her (started_by, a cell, the step that wrote her id)');
    assert.equal((await w.t.db('automations').where({ id: made.id }).first('created_by')).created_by, null);
    const runs = await w.t.db('automation_runs').where({ automation_id: made.id }).select('trigger', 'steps');
    assert.equal(runs.length, 2, 'runs stay');
    assert.ok(runs.every((r) => !JSON.stringify(r).includes(mia.id)), 'no run names her');
    assert.equal((await w.t.request.get(w.api(`/automations/${made.id}`)).set(w.admin.auth).expect(200)).body.name, 'Mia’s rule');
  });
});
