import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import type { DomainEvent, Subscriber } from '../../core/events.ts';
import type { Db } from '../../core/db.ts';
import { eventProbePlugin } from '../fixtures/event-probe.ts';
import { captureLogs } from '../fixtures/log-capture.ts';
import { sleep, waitUntil } from '../fixtures/wait.ts';

describe('domain events', () => {
  let t: TestKernel;
  const logs = captureLogs('warn');
  const received = new Map<string, DomainEvent[]>();
  const flakyAttempts: DomainEvent[] = [];
  const got = (sub: string) => received.get(sub) ?? [];
  const names = (sub: string) => got(sub).map((e) => e.name);
  const recorder = (name: string, events: string[]): Subscriber => ({
    name,
    events,
    handler: async (event) => void received.set(name, [...got(name), event]),
  });

  before(async () => {
    const subscribers: Subscriber[] = [
      recorder('exact', ['probe.item.created']),
      recorder('prefix', ['probe.item.*']),
      recorder('all', ['*']),
      recorder('other', ['other.*']),
      recorder('steady', ['flaky.happened']),
      {
        name: 'flaky',
        events: ['flaky.happened'],
        retryDelaySeconds: 1,
        handler: async (event) => {
          flakyAttempts.push(event);
          if (flakyAttempts.length <= 2) throw new Error(`flaky failure ${flakyAttempts.length}`);
          received.set('flaky', [...got('flaky'), event]);
        },
      },
    ];
    t = await startTestKernel({ plugins: [eventProbePlugin(subscribers)], logger: logs.logger });
  });
  after(() => t.stop());

  const emit = (events: Array<{ name: string; payload?: unknown }>, rollback?: boolean) =>
    t.request.post('/api/v1/event-probe/emit').send({ events, ...(rollback ? { rollback } : {}) });

  it('delivers a committed event to every subscriber whose pattern matches (exact, prefix.*, *)', async () => {
    await emit([{ name: 'probe.item.created', payload: { n: 1 } }]).expect(201);
    await emit([{ name: 'probe.itemized' }, { name: 'other.thing' }]).expect(201);
    // Later sentinels: once they arrive, anything misrouted earlier would have arrived too.
    await emit([{ name: 'probe.item.deleted' }, { name: 'other.done' }]).expect(201);
    await waitUntil('every subscriber to see the sentinels', () =>
      got('all').length === 5 && names('prefix').includes('probe.item.deleted') && names('other').includes('other.done'),
    );

    assert.deepEqual(names('exact'), ['probe.item.created']);
    assert.deepEqual(names('prefix').sort(), ['probe.item.created', 'probe.item.deleted']);
    assert.deepEqual(names('other').sort(), ['other.done', 'other.thing']);
    assert.deepEqual(names('all').sort(), ['other.done', 'other.thing', 'probe.item.created', 'probe.item.deleted', 'probe.itemized']);

    const [event] = got('exact');
    assert.equal(event.payload && (event.payload as { n: number }).n, 1);
    assert.equal(event.workspace_id, null);
    assert.equal(event.actor_id, null);
    assert.ok(Number.isInteger(event.id));
    assert.ok(!Number.isNaN(Date.parse(event.occurred_at)), 'occurred_at is a timestamp');
    // The same event reaches each subscriber with the same identity.
    assert.equal(got('all').find((e) => e.name === 'probe.item.created')?.id, event.id);
    const row = await t.db('kernel_events').where({ id: event.id }).first();
    assert.ok(row.dispatched_at, 'the outbox row is marked dispatched');
  });

  it('stores consecutive events of one name in one outbox row and delivers each with an id of its own', async () => {
    const before = got('exact').length;
    await emit([1, 2, 3].map((n) => ({ name: 'probe.item.created', payload: { n, packed: true } })).concat([{ name: 'probe.item.deleted', payload: { n: 4, packed: true } }])).expect(201);
    await waitUntil('the four events', () => got('exact').length === before + 3 && got('prefix').some((e) => (e.payload as { n?: number } | null)?.n === 4));
    const rows = await t.db('kernel_events').whereRaw("payload::text LIKE '%\"packed\":true%'").orderBy('id').select('id', 'name', 'count', 'dispatched_at');
    assert.deepEqual(rows.map((r) => [r.name, r.count]), [['probe.item.created', 3], ['probe.item.deleted', null]], 'a run of one name shares a row; a lone event has its own');
    assert.ok(rows.every((r) => r.dispatched_at));
    // Each is a job of its own: they may arrive in any order, each with its id.
    const created = got('exact').slice(before).sort((a, b) => a.id - b.id);
    const first = Number(rows[0].id);
    assert.deepEqual(created.map((e) => [e.id, (e.payload as { n: number }).n]), [[first, 1], [first + 1, 2], [first + 2, 3]]);
    assert.ok(Number(rows[1].id) > first + 2, 'the next row takes ids past them');
  });

  it('never delivers an event whose transaction rolled back', async () => {
    const res = await emit([{ name: 'probe.item.rolled-back' }], true).expect(409);
    assert.equal(res.body.code, 'rolled_back');
    assert.equal((await t.db('kernel_events').where({ name: 'probe.item.rolled-back' })).length, 0, 'nothing left in the outbox');

    await emit([{ name: 'probe.item.after-rollback' }]).expect(201);
    await waitUntil('the sentinel', () => names('all').includes('probe.item.after-rollback'));
    for (const sub of ['exact', 'prefix', 'all']) assert.ok(!names(sub).includes('probe.item.rolled-back'), sub);
  });

  it('delivers nothing before the transaction commits, and delivers once it does', async () => {
    const trx = await t.db.transaction();
    try {
      await t.kernel.events.emit(trx, { name: 'probe.item.pending', payload: { late: true } });
      await sleep(1500); // longer than the dispatcher's poll and the workers' polling
      assert.ok(!names('all').includes('probe.item.pending'), 'not delivered while uncommitted');
      await trx.commit();
    } catch (err) {
      await trx.rollback();
      throw err;
    }
    const event = await waitUntil('delivery after commit', () => got('prefix').find((e) => e.name === 'probe.item.pending'));
    assert.deepEqual(event.payload, { late: true });
  });

  it('retries a failing subscriber until it succeeds, logging each failure, without failing the request or other subscribers', async function () {
    this.timeout(40000);
    const started = Date.now();
    await emit([{ name: 'flaky.happened', payload: { k: 'v' } }]).expect(201);
    assert.ok(Date.now() - started < 2000, 'the request does not wait for subscribers');

    await waitUntil('the flaky subscriber to succeed', () => got('flaky').length === 1, 30000);
    assert.equal(flakyAttempts.length, 3, 'two failures, then one success');
    const ids = new Set(flakyAttempts.map((e) => e.id));
    assert.equal(ids.size, 1, 'every attempt carries the same event');
    assert.deepEqual(got('flaky')[0].payload, { k: 'v' });

    const failures = logs.lines.filter((l) => l.job === 'event-probe.events.flaky' && l.level === 40);
    assert.equal(failures.length, 2, 'each failure is logged as a warning');
    assert.deepEqual(failures.map((l) => l.err?.message), ['flaky failure 1', 'flaky failure 2']);
    assert.equal(failures[0].plugin, 'event-probe');

    assert.deepEqual(names('steady'), ['flaky.happened'], 'the other subscriber got it exactly once');
    await sleep(1200);
    assert.equal(flakyAttempts.length, 3, 'no delivery after success');
  });
});

describe('domain events nobody listens to', () => {
  let t: TestKernel;
  const heard: string[] = [];

  before(async () => {
    t = await startTestKernel({ plugins: [eventProbePlugin([{ name: 'one', events: ['probe.heard'], handler: async (e) => void heard.push(e.name) }])] });
  });
  after(() => t.stop());

  it('are recorded as dispatched in the writer\'s transaction, while heard ones are delivered', async () => {
    await t.request.post('/api/v1/event-probe/emit').send({ events: [{ name: 'probe.unheard' }, { name: 'probe.heard' }] }).expect(201);
    const unheard = await t.db('kernel_events').where({ name: 'probe.unheard' }).first();
    // now() is the transaction's start: the same instant as occurred_at only when set by the writer, not by a later fan-out pass
    assert.equal(unheard.dispatched_at?.toISOString(), unheard.occurred_at.toISOString());
    await waitUntil('the heard event', () => heard.includes('probe.heard'));
    assert.deepEqual(heard, ['probe.heard']);
  });
});

describe('domain events past their retention', () => {
  let t: TestKernel;

  before(async () => {
    t = await startTestKernel({ plugins: [eventProbePlugin([])], config: { events: { retentionDays: 3 } } });
    // No fan-out pass during the test: an undispatched event must stay undispatched.
    await t.kernel.events.stop();
  });
  after(() => t.stop());

  const event = (name: string, ageDays: number, dispatched: boolean) => ({
    name,
    payload: JSON.stringify({ name }),
    occurred_at: t.db.raw('now() - make_interval(days => ?)', [ageDays]),
    dispatched_at: dispatched ? t.db.raw('now()') : null,
  });
  const stored = async () => (await t.db('kernel_events').select('name').orderBy('id')).map((r) => r.name as string);

  it('are deleted by a scheduled kernel job once dispatched; younger and undispatched ones stay', async () => {
    await t.db('kernel_events').insert([
      event('old.dispatched.1', 10, true),
      event('old.owed', 9, false),
      event('old.dispatched.2', 4, true),
      event('young.dispatched', 2, true),
      event('young.owed', 0, false),
    ]);
    const schedules = await t.kernel.jobs.boss.getSchedules();
    assert.ok(schedules.some((s: { name: string }) => s.name === 'kernel.events-purge'), 'the purge runs on a schedule');
    await t.kernel.jobs.send('kernel.events-purge', {});
    await waitUntil('the dispatched events older than 3 days to be deleted', async () => !(await stored()).includes('old.dispatched.2'));
    assert.deepEqual(await stored(), ['old.owed', 'young.dispatched', 'young.owed']);
  });

  it('goes through the outbox in chunks until nothing old is left', async () => {
    await t.db('kernel_events').del();
    await t.db.raw(
      `INSERT INTO kernel_events (name, payload, occurred_at, dispatched_at)
       SELECT 'bulk.' || n, '{}', now() - interval '5 days', now() FROM generate_series(1, 10005) n`,
    );
    await t.db('kernel_events').insert(event('young.dispatched', 1, true));
    assert.equal(await t.kernel.events.purgeDispatched(3), 10005);
    assert.deepEqual(await stored(), ['young.dispatched']);
    assert.equal(await t.kernel.events.purgeDispatched(3), 0, 'a second pass finds nothing');
  });
});

describe('fan-out taps', () => {
  let t: TestKernel;
  let failing = false;
  const seen: DomainEvent[][] = [];
  const taps = [
    {
      name: 'writer',
      events: ['tapped.*'],
      handler: async (trx: Db, events: DomainEvent[]) => {
        seen.push(events);
        await trx('tap_probe').insert(events.map((e) => ({ event_id: e.id })));
      },
    },
    {
      name: 'breaker',
      events: ['tapped.*'],
      handler: async () => {
        if (failing) throw new Error('tap failed');
      },
    },
  ];

  before(async () => {
    t = await startTestKernel({ plugins: [eventProbePlugin([], taps)] });
    await t.db.schema.createTable('tap_probe', (tb) => tb.bigInteger('event_id'));
  });
  after(() => t.stop());

  const emit = (names: string[]) => t.request.post('/api/v1/event-probe/emit').send({ events: names.map((name) => ({ name })) }).expect(201);
  const tapped = async () => (await t.db('tap_probe').select('event_id')).map((r) => Number(r.event_id));
  const owed = async () => Number((await t.db('kernel_events').whereNull('dispatched_at').count<{ n: string }[]>({ n: '*' }))[0].n);

  it('counts a tap as a listener and writes in the fan-out transaction, once per matching event', async () => {
    await emit(['tapped.one', 'untapped', 'tapped.two']);
    await waitUntil('the tap to write', async () => (await tapped()).length === 2);
    const events = await t.db('kernel_events').whereIn('name', ['tapped.one', 'tapped.two']).orderBy('id');
    assert.deepEqual((await tapped()).sort(), events.map((e) => Number(e.id)));
    assert.deepEqual(seen.flat().map((e) => e.name).sort(), ['tapped.one', 'tapped.two'], 'only matching events are handed over');
    assert.equal(await owed(), 0);
  });

  it("rolls back the taps' writes when a tap fails, and leaves the batch undispatched for the next pass", async () => {
    failing = true;
    await t.db('tap_probe').del();
    await emit(['tapped.three']);
    await waitUntil('a failed pass', () => seen.some((batch) => batch.some((e) => e.name === 'tapped.three')));
    await t.kernel.events.dispatchBatch().catch(() => undefined);
    assert.deepEqual(await tapped(), [], 'the failed fan-out wrote nothing');
    assert.equal(await owed(), 1, 'the event is still owed');

    failing = false;
    await t.kernel.events.dispatchBatch();
    assert.equal((await tapped()).length, 1, 'the next pass writes it once');
    assert.equal(await owed(), 0);
  });
});
