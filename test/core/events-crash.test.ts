import assert from 'node:assert/strict';
import fs from 'node:fs';
import { newTestStorage, startTestKernel, type TestStorage } from '../../core/testing.ts';
import { openDatabase, type Database } from '../../core/db.ts';
import { eventsOfRow, OUTBOX_COLUMNS } from '../../core/events.ts';
import { CRASH_QUEUE, CRASH_TABLE, crashProbePlugin } from '../fixtures/crash-probe.ts';
import { startFixture, type FixtureChild } from '../fixtures/child-process.ts';
import { waitUntil } from '../fixtures/wait.ts';

const DISPATCHED = 8;
const UNDISPATCHED = 4;
const HANG_AFTER = 3;

function openStorage(storage: TestStorage): Promise<Database> {
  return openDatabase({ url: process.env.DATABASE_URL, schema: storage.schema, dataDir: storage.dataDir });
}

const bossSchema = (storage: TestStorage) => (storage.schema ? `${storage.schema}_jobs` : 'pgboss');

describe('event delivery after a crash', () => {
  let child: FixtureChild | undefined;
  const storage = newTestStorage();
  after(async () => {
    await child?.kill();
    if (storage.dataDir) fs.rmSync(storage.dataDir, { recursive: true, force: true });
    if (storage.schema) {
      const db = await openDatabase({ url: process.env.DATABASE_URL });
      await db.knex.raw('DROP SCHEMA IF EXISTS ?? CASCADE; DROP SCHEMA IF EXISTS ?? CASCADE', [storage.schema, bossSchema(storage)]);
      await db.close();
    }
  });

  it('delivers every event at least once after the delivering process is SIGKILLed mid-way and a new one starts', async function () {
    this.timeout(120000);
    child = startFixture('event-crash-child.ts', {
      FIXTURE_STORAGE: JSON.stringify(storage),
      FIXTURE_DISPATCHED: String(DISPATCHED),
      FIXTURE_UNDISPATCHED: String(UNDISPATCHED),
      FIXTURE_HANG_AFTER: String(HANG_AFTER),
    });
    const { inFlight } = await child.message<{ inFlight: number }>('stalled', 90000);

    if (storage.dataDir) {
      await assert.rejects(openStorage(storage), { name: 'StartupError', code: 'database_locked' }, 'the live child holds the PGlite directory');
    }
    await child.kill();

    // The state the crash left behind, seen by a plain connection (on PGlite: taking over the dead child's lock).
    const db = await openStorage(storage);
    let allIds: number[];
    try {
      // One outbox row may hold several events (those of one write): each counts, with its row's state.
      const rows = await db.knex('kernel_events').select([...OUTBOX_COLUMNS, 'dispatched_at']).orderBy('id');
      const events = rows.flatMap((row) => eventsOfRow(row).map((e) => ({ id: e.id, dispatched_at: row.dispatched_at })));
      allIds = events.map((e) => Number(e.id));
      assert.equal(allIds.length, DISPATCHED + UNDISPATCHED);
      assert.equal(events.filter((e) => !e.dispatched_at).length, UNDISPATCHED, 'some events were never fanned out');
      const recorded = (await db.knex(CRASH_TABLE).pluck('event_id')).map(Number);
      assert.equal(recorded.length, HANG_AFTER, 'some deliveries happened before the crash');
      assert.ok(!recorded.includes(inFlight), 'the in-flight delivery never finished');
      const active = await db.knex(`${bossSchema(storage)}.job`).where({ name: CRASH_QUEUE, state: 'active' }).count<{ n: number }[]>({ n: '*' });
      assert.equal(Number(active[0].n), 1, 'one delivery was in flight when the process died');
    } finally {
      await db.close();
    }

    const t = await startTestKernel({ storage, plugins: [crashProbePlugin()], jobsMaintenanceSeconds: 1 });
    try {
      const recorded = await waitUntil(
        'every event to be recorded',
        async () => {
          const ids = new Set((await t.db(CRASH_TABLE).pluck('event_id')).map(Number));
          return allIds.every((id) => ids.has(id)) && ids;
        },
        60000,
        250,
      );
      assert.ok(recorded.has(inFlight), 'the delivery that was in flight was re-run');
      const pending = await t.db('kernel_events').whereNull('dispatched_at');
      assert.equal(pending.length, 0, 'the new process fanned out what the old one never did');
    } finally {
      await t.stop();
    }
  });
});
