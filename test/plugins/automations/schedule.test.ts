import assert from 'node:assert/strict';
import parser from 'cron-parser';
import { waitUntil } from '../../fixtures/wait.ts';
import { automationWorld, type AutomationWorld } from './world.ts';

const CRON = '0 9 * * *';
const TZ = 'Europe/Paris';

describe('automations: schedule trigger', function () {
  this.timeout(60000);
  let w: AutomationWorld;

  before(async () => {
    w = await automationWorld({ config: { jobs: { pollingIntervalSeconds: 0.5 } } });
  });
  after(() => w.t.stop());

  const scheduler = () => w.t.container.resolverFor('automations')('automations.scheduler');
  const create = (body: Record<string, unknown>) => w.t.request.post(w.api('/automations')).set(w.admin.auth).send({ name: 'Daily', database_id: w.db, enabled: true, trigger: { type: 'schedule', cron: CRON, timezone: TZ }, ...body });
  const runs = async (id: string) => (await w.t.request.get(w.api(`/automations/${id}/runs`)).set(w.admin.auth).expect(200)).body.data as Array<Record<string, any>>;
  const finished = async (id: string, n: number) => {
    await waitUntil(`${n} finished runs`, async () => (await runs(id)).filter((r) => !['queued', 'running'].includes(r.status)).length >= n, 20000);
    return runs(id);
  };
  const disable = (id: string) => w.t.request.patch(w.api(`/automations/${id}`)).set(w.admin.auth).send({ enabled: false }).expect(200);
  /** The cron's next fire times after the real now (the automations were just saved: earlier times are not theirs). */
  const fires = (n: number) => {
    const it = parser.parseExpression(CRON, { tz: TZ });
    return Array.from({ length: n }, () => it.next().toDate());
  };
  const later = (d: Date, seconds: number) => new Date(d.getTime() + seconds * 1000);

  it('refuses a bad cron, an unknown time zone and conditions at save, storing nothing', async () => {
    const count = async () => Number((await w.t.db('automations').count({ n: '*' }))[0].n);
    const n = await count();
    const actions = [{ type: 'create_record', database_id: w.logDb, values: { name: 'x' } }];
    for (const [body, pointer] of [
      [{ trigger: { type: 'schedule', cron: '0 9 * * * *', timezone: TZ } }, '/trigger/cron'],
      [{ trigger: { type: 'schedule', cron: '61 9 * * *', timezone: TZ } }, '/trigger/cron'],
      [{ trigger: { type: 'schedule', cron: '0 9 * * *', timezone: 'Mars/Olympus' } }, '/trigger/timezone'],
      [{ conditions: { field: 'amount', op: 'gt', value: 1 } }, '/conditions'],
    ] as const) {
      const res = await create({ actions, ...body }).expect(422);
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), [pointer], JSON.stringify(res.body.errors));
    }
    assert.equal(await count(), n);
    const conditional = (await create({ actions, trigger: { type: 'record_created' }, conditions: { field: 'amount', op: 'gt', value: 1 } }).expect(201)).body;
    const res = await w.t.request.patch(w.api(`/automations/${conditional.id}`)).set(w.admin.auth).send({ trigger: { type: 'schedule', cron: CRON, timezone: TZ } }).expect(422);
    assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/trigger/type']);
    await w.t.request.patch(w.api(`/automations/${conditional.id}`)).set(w.admin.auth).send({ trigger: { type: 'schedule', cron: CRON, timezone: TZ }, conditions: null }).expect(200);
    await disable(conditional.id);
  });

  it('starts one run per fire time, at the time of its zone, however many ticks see it', async () => {
    const a = (await create({ actions: [{ type: 'create_record', database_id: w.logDb, values: { name: 'Daily report' } }] }).expect(201)).body;
    const [first, second] = fires(2);
    assert.equal(new Intl.DateTimeFormat('en-GB', { timeZone: TZ, hour: '2-digit', minute: '2-digit' }).format(first), '09:00');

    assert.equal(await scheduler().tick(later(first, -1)), 0, 'not yet');
    assert.equal(await scheduler().tick(first), 1);
    assert.equal(await scheduler().tick(later(first, 30)), 0, 'the same fire time again');
    // Two processes ticking at once: one run.
    const both = await Promise.all([scheduler().tick(later(second, 5)), scheduler().tick(later(second, 5))]);
    assert.equal(both[0] + both[1], 1);

    const done = await finished(a.id, 2);
    assert.deepEqual(
      done.map((r) => r.trigger).reverse(),
      [first, second].map((d) => ({ type: 'schedule', record_id: null, event_id: null, scheduled_for: d.toISOString() })),
    );
    for (const run of done) {
      assert.equal(run.status, 'succeeded', JSON.stringify(run));
      const made = await w.t.request.get(w.api(`/databases/${w.logDb}/records/${run.steps[0].output.record_id}`)).set(w.admin.auth).expect(200);
      assert.equal(made.body.values.name, 'Daily report');
    }
    await disable(a.id);
    assert.equal(await scheduler().tick(later(fires(3)[2], 1)), 0, 'a disabled automation is not run');
  });

  it('a scheduled run has no record: placeholders of it are empty and update_record fails clearly', async () => {
    const a = (await create({ actions: [{ type: 'create_record', database_id: w.logDb, values: { name: 'Report{{record.name}}' } }, { type: 'update_record', values: { note: 'x' } }] }).expect(201)).body;
    assert.equal(await scheduler().tick(later(fires(4)[3], 1)), 1);
    const [run] = await finished(a.id, 1);
    assert.equal(run.status, 'failed');
    const made = await w.t.request.get(w.api(`/databases/${w.logDb}/records/${run.steps[0].output.record_id}`)).set(w.admin.auth).expect(200);
    assert.equal(made.body.values.name, 'Report');
    assert.equal(run.steps[1].status, 'failed');
    assert.match(run.steps[1].error, /No record triggered this run/);
    await disable(a.id);
  });

  it('tries a schedule without a record in a dry run, storing nothing; a record trigger still needs one', async () => {
    const a = (await create({ enabled: false, actions: [{ type: 'create_record', database_id: w.logDb, values: { name: 'Report {{trigger.scheduled_for}}' } }] }).expect(201)).body;
    const logged = async () => (await w.t.request.get(w.api(`/databases/${w.logDb}/records`)).set(w.admin.auth).expect(200)).body.data.length;
    const before = await logged();
    const dry = (await w.t.request.post(w.api(`/automations/${a.id}/dry-run`)).set(w.admin.auth).send({}).expect(200)).body;
    assert.equal(dry.matched, true);
    assert.equal(dry.steps[0].would.database_id, w.logDb);
    assert.match(dry.steps[0].would.values.name, /^Report \d{4}-\d{2}-\d{2}T/);
    assert.equal(await logged(), before);
    const onCreate = (await create({ enabled: false, trigger: { type: 'record_created' }, actions: [{ type: 'update_record', values: { note: 'x' } }] }).expect(201)).body;
    const refused = await w.t.request.post(w.api(`/automations/${onCreate.id}/dry-run`)).set(w.admin.auth).send({}).expect(422);
    assert.equal(refused.body.errors[0].pointer, '/record_id');
  });

  it('registers the every-minute job that ticks', async () => {
    const jobs = w.t.container.resolverFor('automations')('jobs');
    assert.ok(jobs.has('automations.schedule'));
    const schedules = await jobs.boss.getSchedules();
    assert.deepEqual(
      schedules.filter((s) => s.name === 'automations.schedule').map((s) => s.cron),
      ['* * * * *'],
    );
  });
});
