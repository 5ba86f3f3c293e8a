import assert from 'node:assert/strict';
import { createWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { startFeedServer, type FeedServer } from '../integration-ical/feed-server.ts';
import { calendar, vevent } from '../integration-ical/fixtures.ts';
import { scratchSchema, TEST_DATABASE_URL, type Scratch } from '../integration-postgres/fixture.ts';
import { recordsOf, syncedRun } from './runs.ts';

/**
 * The built-in kinds end to end, through the sources plugin and the records write path: an iCal feed served on
 * loopback and a table of the local PostgreSQL read as a user's database. Private networks are allowed for both (the
 * providers here live on this machine).
 */
describe('sources: the built-in kinds end to end', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let owner: SignedUpUser;
  let ws: string;
  let feed: FeedServer;
  let scratch: Scratch;
  const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;

  before(async () => {
    t = await startTestKernel({ config: { plugins: { sources: { options: { allowPrivateNetworks: true } }, 'integration-postgres': { options: { allowPrivateNetworks: true } } } } });
    owner = await signUp(t);
    ws = (await createWorkspace(t, owner)).id;
    await t.request.post(api('/spaces')).set(owner.auth).send({ name: 'Synced' }).expect(201);
    feed = await startFeedServer();
    scratch = await scratchSchema();
  });
  after(async () => {
    await feed.close();
    await scratch.drop();
    await t.stop();
  });

  const synced = (sourceId: string, body: Record<string, unknown> = {}) => syncedRun(t, owner.auth, ws, sourceId, body);

  const records = (databaseId: string) => recordsOf(t, owner.auth, ws, databaseId);

  it('ical.events: events become records by UID; a changed feed updates, a gone event is deleted, then kept once the policy says keep', async () => {
    const soon = new Date(Date.now() + 7 * 86_400_000);
    const stamp = (d: Date, hour: number) => `${d.toISOString().slice(0, 10).replaceAll('-', '')}T${String(hour).padStart(2, '0')}0000Z`;
    const events = (title: string, withLast = true) =>
      calendar(
        vevent('UID:planning@example.test', `DTSTART:${stamp(soon, 9)}`, `DTEND:${stamp(soon, 10)}`, `SUMMARY:${title}`, 'LOCATION:Room 1'),
        vevent('UID:review@example.test', `DTSTART:${stamp(soon, 14)}`, `DTEND:${stamp(soon, 15)}`, 'SUMMARY:Review'),
        ...(withLast ? [vevent('UID:party@example.test', `DTSTART;VALUE=DATE:${stamp(soon, 0).slice(0, 8)}`, 'SUMMARY:Party')] : []),
      );
    feed.ics('/team.ics', events('Planning'));
    const created = await t.request.post(api('/sources')).set(owner.auth).send({ kind: 'ical.events', name: 'Team calendar', config: { url: `${feed.origin}/team.ics` } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const source = created.body;
    const first = await synced(source.id);
    assert.deepEqual([first.status, first.created, first.updated, first.deleted], ['succeeded', 3, 0, 0]);
    let rows = await records(source.database_id);
    const planning = rows.find((r) => r.values.uid === 'planning@example.test')!;
    assert.equal(planning.values.summary, 'Planning');
    assert.equal(planning.values.location, 'Room 1');
    assert.equal(new Date(planning.values.start).toISOString(), new Date(`${soon.toISOString().slice(0, 10)}T09:00:00Z`).toISOString());
    assert.equal(rows.find((r) => r.values.uid === 'party@example.test')!.values.all_day, true);

    // Nothing changed at the source: nothing is written again.
    const again = await synced(source.id);
    assert.deepEqual([again.created, again.updated, again.deleted], [0, 0, 0]);

    feed.ics('/team.ics', events('Planning (moved)', false));
    const dry = (await t.request.post(api(`/sources/${source.id}/sync`)).set(owner.auth).send({ dry_run: true }).expect(200)).body;
    assert.deepEqual([dry.create, dry.update, dry.delete], [0, 1, 1]);
    const second = await synced(source.id);
    assert.deepEqual([second.created, second.updated, second.deleted], [0, 1, 1]);
    rows = await records(source.database_id);
    assert.equal(rows.find((r) => r.id === planning.id)!.values.summary, 'Planning (moved)');
    assert.deepEqual(rows.map((r) => r.values.uid).sort(), ['planning@example.test', 'review@example.test']);

    await t.request.patch(api(`/sources/${source.id}`)).set(owner.auth).send({ delete_policy: 'keep' }).expect(200);
    feed.ics('/team.ics', calendar(vevent('UID:planning@example.test', `DTSTART:${stamp(soon, 9)}`, `DTEND:${stamp(soon, 10)}`, 'SUMMARY:Planning (moved)', 'LOCATION:Room 1')));
    const third = await synced(source.id);
    assert.deepEqual([third.created, third.updated, third.deleted], [0, 0, 0]);
    assert.equal((await records(source.database_id)).length, 2, 'kept: the review stays though the feed dropped it');
  });

  it('ical.events: a feed the provider cannot give (404) fails the run with its reason, and the source shows the error', async () => {
    const missing = await t.request.post(api('/sources')).set(owner.auth).send({ kind: 'ical.events', name: 'Nothing', config: { url: `${feed.origin}/missing.ics` } }).expect(201);
    const run = await synced(missing.body.id);
    assert.equal(run.status, 'failed');
    assert.match(run.error, /404/);
    const shown = (await t.request.get(api(`/sources/${missing.body.id}`)).set(owner.auth).expect(200)).body;
    assert.equal(shown.status, 'error');
  });

  it('postgres.table: a first full sync, then only the rows changed since (updated-at cursor), then a full sync finds deletions', async () => {
    const table = `${scratch.schema}.customers`;
    await scratch.admin.query(`CREATE TABLE ${table} (id bigint PRIMARY KEY, name text NOT NULL, plan text, seats int, updated timestamptz NOT NULL DEFAULT now())`);
    await scratch.admin.query(`INSERT INTO ${table} (id, name, plan, seats) SELECT g, 'Customer ' || g, CASE WHEN g % 2 = 0 THEN 'pro' ELSE 'free' END, g % 7 FROM generate_series(1, 2300) g`);
    const connection = await t.request.post(api('/connections')).set(owner.auth).send({ provider: 'postgres', name: 'Warehouse', credentials: { url: TEST_DATABASE_URL } });
    assert.equal(connection.status, 201, JSON.stringify(connection.body));
    const created = await t.request
      .post(api('/sources'))
      .set(owner.auth)
      .send({ kind: 'postgres.table', name: 'Customers', connection_id: connection.body.id, config: { schema: scratch.schema, table: 'customers', key_column: 'id', updated_at_column: 'updated' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const source = created.body;
    const first = await synced(source.id);
    assert.deepEqual([first.status, first.created, first.skipped], ['succeeded', 2300, 0]);
    // Pages of 1,000 new records (customer 1500 is on the second) are left to the rebuild the run asks for when it ends: found then.
    for (let i = 0; ; i++) {
      await t.kernel.events.settle();
      const hits = (await t.request.get(api('/search?q=Customer%201500')).set(owner.auth).expect(200)).body.data as Array<{ title: string }>;
      if (hits.some((h) => h.title === 'Customer 1500')) break;
      if (i === 100) assert.fail('a synced record is not found by search');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    await t.request.post(api(`/databases/${source.database_id}/fields`)).set(owner.auth).send({ name: 'Account manager', type: 'text' }).expect(201);
    const all = await records(source.database_id);
    const seven = all.find((r) => r.values.name === 'Customer 7');
    assert.ok(seven, 'the first page of the database holds customer 7');
    await t.request.patch(api(`/databases/${source.database_id}/records/${seven.id}`)).set(owner.auth).send({ values: { account_manager: 'Ada' } }).expect(200);

    await scratch.admin.query(`UPDATE ${table} SET plan = 'enterprise', updated = clock_timestamp() WHERE id IN (7, 8, 9)`);
    await scratch.admin.query(`DELETE FROM ${table} WHERE id = 10`);
    const incremental = await synced(source.id);
    assert.deepEqual([incremental.created, incremental.updated, incremental.deleted], [0, 3, 0], 'an incremental read sees the changes, not the deletion');
    const after = (await records(source.database_id)).find((r) => r.id === seven.id)!;
    assert.equal(after.values.plan, 'enterprise');
    assert.equal(after.values.account_manager, 'Ada', "the user's own field is kept");

    const full = await synced(source.id, { full: true });
    assert.deepEqual([full.created, full.updated, full.deleted], [0, 0, 1]);
  });
});
