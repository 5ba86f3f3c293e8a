import assert from 'node:assert/strict';
import { pino } from 'pino';
import { definePlugin } from '../../../core/plugin.ts';
import { Type } from '../../../core/schema.ts';
import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { builtinPlugins } from '../../../plugins/index.ts';
import type { IntegrationProvider } from '../../../plugins/integrations/public.ts';
import { RateLimited, SourceUnavailable, type SourceKind, type SourceRow } from '../../../plugins/sources/public.ts';
import { tick } from '../../../plugins/sources/schedule.ts';
import { endedRun, recordsOf } from './runs.ts';

const silentLogger = pino({ level: 'silent' });

/** The rows the fixture source holds, by data set name: what a provider's API would answer. */
const DATA = new Map<string, Array<{ id: string; title: string; count: number }>>();
/** Pages read so far per data set: a run's progress, seen from the provider's side. */
const READS = new Map<string, number>();
const PAGE = 2;

/** A kind of this test's own: a full listing of a data set, two rows a page, the cursor the next page's index. */
const fixtureKind: SourceKind<{ dataset: string; slow?: boolean }> = {
  id: 'fixture.rows',
  name: 'Fixture rows',
  provider: null,
  configSchema: Type.Object({ dataset: Type.String({ minLength: 1 }), slow: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
  async properties() {
    return [
      { key: 'id', name: 'Row id', type: 'text', unique: true },
      { key: 'title', name: 'Title', type: 'text' },
      { key: 'count', name: 'Count', type: 'number', options: { precision: 0 } },
    ];
  },
  async *read({ config, cursor }) {
    const rows = DATA.get(config.dataset) ?? [];
    let page = (cursor as { page?: number } | null)?.page ?? 0;
    do {
      if (config.slow) await new Promise((resolve) => setTimeout(resolve, 150));
      READS.set(config.dataset, (READS.get(config.dataset) ?? 0) + 1);
      const slice = rows.slice(page * PAGE, (page + 1) * PAGE);
      page++;
      const last = page * PAGE >= rows.length;
      yield { rows: slice.map((r): SourceRow => ({ key: r.id, values: { id: r.id, title: r.title, count: r.count } })), cursor: last ? null : { page }, snapshot: true };
    } while (page * PAGE < rows.length);
  },
};

/** Channels the pushing kind was asked to open and to close, as its provider would have kept them. */
const WATCHED: Array<{ channelId: string; address: string; token: string }> = [];
const UNWATCHED: string[] = [];

/**
 * A provider of this test's own whose deliveries carry the channel in `x-fixture-channel`, proven by the connection's
 * webhook secret in `x-fixture-token`; its kind reads like `fixture.rows` and opens push channels.
 */
const fixtureProvider: IntegrationProvider = {
  id: 'fixture',
  name: 'Fixture',
  categories: ['calendar'],
  auth: { type: 'api_key', fields: [{ name: 'key', label: 'Key', secret: true }] },
  signsWithSharedSecret: true,
  events: ['changed', 'opened'],
  test: async () => ({ ok: true, detail: 'Fixture', account: null }),
  verifyWebhook: ({ headers, secret }) => {
    if (!secret || headers['x-fixture-token'] !== secret) return { refused: 'Not the connection’s token.' };
    return { deliveryId: String(headers['x-fixture-delivery']), event: String(headers['x-fixture-event']), payload: { channel_id: headers['x-fixture-channel'] } };
  },
};
const pushingKind: SourceKind<{ dataset: string }> = {
  ...(fixtureKind as SourceKind),
  id: 'fixture.pushed',
  provider: 'fixture',
  configSchema: Type.Object({ dataset: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  async watch({ address, token, channelId }) {
    WATCHED.push({ channelId, address, token });
    return { id: channelId, resourceId: `resource-${channelId}`, expiresAt: new Date(Date.now() + 7 * 86_400_000) };
  },
  async unwatch({ channel }) {
    UNWATCHED.push(channel.id);
  },
  changedChannel: ({ event, payload }) => (event === 'changed' ? ((payload as { channel_id?: string }).channel_id ?? null) : null),
};

/** How the failing kind fails, per data set: always, or with a rate limit of so many seconds the first time. */
const FAILING = new Map<string, { mode: 'fail' } | { mode: 'limit'; seconds: number; times: number }>();
const failingKind: SourceKind<{ dataset: string }> = {
  ...(fixtureKind as SourceKind),
  id: 'fixture.failing',
  configSchema: Type.Object({ dataset: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  read(input) {
    const how = FAILING.get(input.config.dataset);
    if (how?.mode === 'fail') throw new SourceUnavailable('The fixture provider is down.');
    if (how?.mode === 'limit' && how.times > 0) {
      how.times--;
      throw new RateLimited(how.seconds);
    }
    return fixtureKind.read(input);
  },
};

const fixturePlugin = definePlugin({
  id: 'integration-fixture',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { sources: '^1.0.0', integrations: '^1.0.0' },
  register(ctx) {
    ctx.hooksOf('integrations.providers').providers.tap('integration-fixture', (list) => [...list, fixtureProvider]);
    ctx.hooksOf('sources.kinds').kinds.tap('integration-fixture', (list) => [...list, fixtureKind, pushingKind, failingKind]);
  },
});

describe('sources: syncing a provider’s rows into a database', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let owner: SignedUpUser;
  let member: SignedUpUser;
  let ws: string;
  const url = (path = '') => `/api/v1/workspaces/${ws}/sources${path}`;

  before(async () => {
    t = await startTestKernel({ plugins: [...builtinPlugins, fixturePlugin] });
    owner = await signUp(t);
    member = await signUp(t);
    ws = (await createWorkspace(t, owner)).id;
    await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(owner.auth).send({ name: 'Synced' }).expect(201);
    await joinWorkspace(t, owner, ws, member, 'member');
  });
  after(() => t.stop());

  /** Waits for a run to end; its final state. */
  const ended = (sourceId: string, runId: string) => endedRun(t, owner.auth, ws, sourceId, runId);

  const records = (databaseId: string) => recordsOf(t, owner.auth, ws, databaseId);

  it('creates a database of synced fields, syncs into it by key, keeps the user’s own fields, and deletes rows gone at the source', async () => {
    DATA.set('a', [
      { id: 'r1', title: 'One', count: 1 },
      { id: 'r2', title: 'Two', count: 2 },
      { id: 'r3', title: 'Three', count: 3 },
    ]);
    const created = await t.request.post(url()).set(owner.auth).send({ kind: "fixture.rows", name: "Rows", config: { dataset: "a" } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const source = created.body;
    assert.equal(source.status, 'idle');
    assert.equal(source.schedule, 'manual');
    assert.equal(source.last_run, null);
    const fields = (await t.request.get(`/api/v1/workspaces/${ws}/databases/${source.database_id}/fields`).set(owner.auth).expect(200)).body.data as Array<{ id: string; api_name: string; synced: boolean; is_title: boolean }>;
    assert.deepEqual(fields.filter((f) => f.synced).map((f) => f.api_name).sort(), ['count', 'id', 'title']);
    assert.equal(fields.find((f) => f.is_title)?.api_name, 'title');

    const { run_id } = (await t.request.post(url(`/${source.id}/sync`)).set(owner.auth).send({}).expect(202)).body;
    const run = await ended(source.id, run_id);
    assert.equal(run.status, 'succeeded');
    assert.deepEqual([run.created, run.updated, run.deleted], [3, 0, 0]);
    let rows = await records(source.database_id);
    assert.deepEqual(rows.map((r) => [r.values.id, r.values.title, r.values.count]).sort(), [['r1', 'One', 1], ['r2', 'Two', 2], ['r3', 'Three', 3]]);

    // Synced cells are the source's; a field of the user's own is theirs, and stays.
    const r2 = rows.find((r) => r.values.id === 'r2')!;
    const refused = await t.request.patch(`/api/v1/workspaces/${ws}/databases/${source.database_id}/records/${r2.id}`).set(owner.auth).send({ values: { title: 'Mine' } }).expect(422);
    assert.equal(refused.body.code, 'field_read_only');
    assert.equal(refused.body.errors[0].pointer, '/values/title');
    await t.request.post(`/api/v1/workspaces/${ws}/databases/${source.database_id}/fields`).set(owner.auth).send({ name: 'Note', type: 'text' }).expect(201);
    await t.request.patch(`/api/v1/workspaces/${ws}/databases/${source.database_id}/records/${r2.id}`).set(owner.auth).send({ values: { note: 'keep me' } }).expect(200);
    const titleField = fields.find((f) => f.api_name === 'title')!;
    assert.equal((await t.request.delete(`/api/v1/workspaces/${ws}/databases/${source.database_id}/fields/${fields.find((f) => f.api_name === 'count')!.id}`).set(owner.auth).expect(409)).body.code, 'field_synced');
    await t.request.patch(`/api/v1/workspaces/${ws}/databases/${source.database_id}/fields/${titleField.id}`).set(owner.auth).send({ name: 'Heading' }).expect(200);

    // At the source: r1 changes, r3 goes, r4 comes; r2 is as it was.
    DATA.set('a', [
      { id: 'r1', title: 'One!', count: 10 },
      { id: 'r2', title: 'Two', count: 2 },
      { id: 'r4', title: 'Four', count: 4 },
    ]);
    const dry = (await t.request.post(url(`/${source.id}/sync`)).set(owner.auth).send({ dry_run: true }).expect(200)).body;
    assert.deepEqual([dry.create, dry.update, dry.delete], [1, 1, 1]);
    assert.deepEqual(dry.samples.delete, [{ key: 'r3' }]);
    assert.equal((await records(source.database_id)).length, 3, 'a dry run writes nothing');

    const second = await ended(source.id, (await t.request.post(url(`/${source.id}/sync`)).set(owner.auth).send({}).expect(202)).body.run_id);
    assert.deepEqual([second.status, second.created, second.updated, second.deleted], ['succeeded', 1, 1, 1]);
    rows = await records(source.database_id);
    assert.deepEqual(rows.map((r) => [r.values.id, r.values.title, r.values.count]).sort(), [['r1', 'One!', 10], ['r2', 'Two', 2], ['r4', 'Four', 4]]);
    assert.equal(rows.find((r) => r.values.id === 'r2')!.id, r2.id, 'matched by key: the same record');
    assert.equal(rows.find((r) => r.values.id === 'r2')!.values.note, 'keep me');

    const shown = (await t.request.get(url(`/${source.id}`)).set(owner.auth).expect(200)).body;
    assert.equal(shown.last_run.id, second.id);
    assert.equal(shown.status, 'idle');
  });

  it('runs one sync of a source at a time (409 sync_running)', async () => {
    DATA.set('slow', Array.from({ length: 6 }, (_, i) => ({ id: `s${i}`, title: `S${i}`, count: i })));
    const source = (await t.request.post(url()).set(owner.auth).send({ kind: 'fixture.rows', name: 'Slow', config: { dataset: 'slow', slow: true } }).expect(201)).body;
    const first = (await t.request.post(url(`/${source.id}/sync`)).set(owner.auth).send({}).expect(202)).body.run_id;
    const again = await t.request.post(url(`/${source.id}/sync`)).set(owner.auth).send({ full: true }).expect(409);
    assert.equal(again.body.code, 'sync_running');
    assert.equal(again.body.run_id, first);
    assert.equal((await ended(source.id, first)).created, 6);
  });

  it('goes on from the last saved page after a run stopped halfway, writing every row once', async () => {
    DATA.set('crash', Array.from({ length: 7 }, (_, i) => ({ id: `c${i}`, title: `C${i}`, count: i })));
    const source = (await t.request.post(url()).set(owner.auth).send({ kind: 'fixture.rows', name: 'Crash', config: { dataset: 'crash', slow: true } }).expect(201)).body;
    // A queued run without its job: this test runs it itself.
    const [{ id: runId }] = await t.db('source_runs').insert({ source_id: source.id, workspace_id: ws, status: 'queued', trigger: 'manual', full: false }).returning('id');
    // This process stops the run after its second page, as a killed process would: the run stays `running`.
    const stop = new AbortController();
    READS.set('crash', 0);
    const running = t.kernel.container.resolverFor('sources')('sources.runner').run(runId, stop.signal);
    while ((READS.get('crash') ?? 0) < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    stop.abort();
    await running;
    const halfway = (await t.db('source_runs').where({ id: runId }).first()) as { status: string; created: number; page_cursor: unknown };
    assert.equal(halfway.status, 'running');
    assert.ok(halfway.created >= 2 && halfway.created < 7, `some pages were written (${halfway.created})`);
    // Its job sent again while the run still says it is alive: another process is on it, nothing is done twice.
    await t.kernel.container.resolverFor('sources')('sources.runner').run(runId);
    assert.deepEqual(await t.db('source_runs').where({ id: runId }).first('status', 'created'), { status: 'running', created: halfway.created });
    // Silent for longer than a live run ever is: the process is taken for stopped, and the run goes on.
    await t.db('source_runs').where({ id: runId }).update({ heartbeat_at: new Date(Date.now() - 3_600_000) });
    await t.kernel.container.resolverFor('sources')('sources.runner').run(runId);
    const run = await ended(source.id, runId);
    assert.deepEqual([run.status, run.created], ['succeeded', 7]);
    const rows = await records(source.database_id);
    assert.deepEqual(rows.map((r) => r.values.id).sort(), ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
  });

  it('shows sources to those who see their database, and lets only creators make and change them', async () => {
    DATA.set('m', [{ id: 'm1', title: 'M', count: 1 }]);
    const source = (await t.request.post(url()).set(owner.auth).send({ kind: 'fixture.rows', name: 'Members see', config: { dataset: 'm' } }).expect(201)).body;
    assert.ok((await t.request.get(url()).set(member.auth).expect(200)).body.data.some((s: { id: string }) => s.id === source.id));
    await t.request.post(url()).set(member.auth).send({ kind: 'fixture.rows', name: 'No', config: { dataset: 'm' }, database_id: source.database_id }).expect(403);
    await t.request.post(url(`/${source.id}/sync`)).set(member.auth).send({}).expect(403);
    await t.request.patch(url(`/${source.id}`)).set(member.auth).send({ name: 'Renamed' }).expect(403);
    await t.request.post(url()).set(owner.auth).send({ kind: 'no.such', name: 'X', config: {} }).expect(422);
    const bad = await t.request.post(url()).set(owner.auth).send({ kind: 'fixture.rows', name: 'X', config: { dataset: '' } }).expect(422);
    assert.equal(bad.body.errors[0].pointer, '/config/dataset');
  });

  it('leaves the database and makes its fields ordinary when the source is deleted', async () => {
    DATA.set('d', [{ id: 'd1', title: 'D', count: 1 }]);
    const source = (await t.request.post(url()).set(owner.auth).send({ kind: 'fixture.rows', name: 'Deleted', config: { dataset: 'd' } }).expect(201)).body;
    await ended(source.id, (await t.request.post(url(`/${source.id}/sync`)).set(owner.auth).send({}).expect(202)).body.run_id);
    await t.request.delete(url(`/${source.id}`)).set(owner.auth).expect(204);
    await t.request.get(url(`/${source.id}`)).set(owner.auth).expect(404);
    const fields = (await t.request.get(`/api/v1/workspaces/${ws}/databases/${source.database_id}/fields`).set(owner.auth).expect(200)).body.data as Array<{ synced: boolean }>;
    assert.ok(fields.every((f) => !f.synced));
    const [row] = await records(source.database_id);
    await t.request.patch(`/api/v1/workspaces/${ws}/databases/${source.database_id}/records/${row.id}`).set(owner.auth).send({ values: { title: 'Now mine' } }).expect(200);
  });

  it('opens a push channel to the connection’s receiver; a delivery on it starts a run; deleting the source closes it', async () => {
    DATA.set('pushed', [{ id: 'p1', title: 'P1', count: 1 }]);
    const connection = (await t.request.post(`/api/v1/workspaces/${ws}/connections`).set(owner.auth).send({ provider: 'fixture', name: 'Fixture', credentials: { key: 'k' } }).expect(201)).body;
    const source = (await t.request.post(url()).set(owner.auth).send({ kind: 'fixture.pushed', name: 'Pushed', connection_id: connection.id, config: { dataset: 'pushed' } }).expect(201)).body;
    const watched = WATCHED.at(-1)!;
    assert.equal(watched.address, connection.webhook_url);
    assert.equal(watched.token, connection.webhook_secret);

    const deliver = (n: number, event: string, channel: string, token = connection.webhook_secret) =>
      t.request.post(new URL(connection.webhook_url).pathname).set({ 'x-fixture-token': token, 'x-fixture-delivery': `d${n}`, 'x-fixture-event': event, 'x-fixture-channel': channel }).send({});
    await deliver(1, 'opened', watched.channelId).expect(202);
    await deliver(2, 'changed', 'another-channel').expect(202);
    await deliver(3, 'changed', watched.channelId, 'not-the-token').expect(401);
    await t.kernel.events.settle();
    assert.equal((await t.request.get(url(`/${source.id}/runs`)).set(owner.auth).expect(200)).body.data.length, 0, 'neither an opening, another channel nor a forged delivery starts a run');

    await deliver(4, 'changed', watched.channelId).expect(202);
    await t.kernel.events.settle();
    const [run] = (await t.request.get(url(`/${source.id}/runs`)).set(owner.auth).expect(200)).body.data;
    assert.equal(run.trigger, 'push');
    assert.equal((await ended(source.id, run.id)).created, 1);

    await t.request.delete(url(`/${source.id}`)).set(owner.auth).expect(204);
    assert.ok(UNWATCHED.includes(watched.channelId));
  });

  it('pauses a schedule after five failed runs in a row and tells its creator; a manual sync starts it again', async () => {
    FAILING.set('down', { mode: 'fail' });
    DATA.set('down', [{ id: 'x1', title: 'X', count: 1 }]);
    const source = (await t.request.post(url()).set(owner.auth).send({ kind: 'fixture.failing', name: 'Flaky', config: { dataset: 'down' }, schedule: 'hourly' }).expect(201)).body;
    for (let i = 1; i <= 5; i++) {
      const run = await ended(source.id, (await t.request.post(url(`/${source.id}/sync`)).set(owner.auth).send({}).expect(202)).body.run_id);
      assert.equal(run.status, 'failed');
      assert.equal(run.error, 'The fixture provider is down.');
      const shown = (await t.request.get(url(`/${source.id}`)).set(owner.auth).expect(200)).body;
      assert.equal(shown.status, i < 5 ? 'error' : 'paused');
    }
    const told = await t.db('notifications').where({ user_id: owner.id, type: 'source_paused', subject_id: source.id }).select('data');
    assert.equal(told.length, 1);
    assert.equal(told[0].data.error, 'The fixture provider is down.');
    assert.equal((await t.db('sources').where({ id: source.id }).first('next_run_at')).next_run_at, null, 'a paused schedule runs no more');

    FAILING.delete('down');
    const run = await ended(source.id, (await t.request.post(url(`/${source.id}/sync`)).set(owner.auth).send({}).expect(202)).body.run_id);
    assert.equal(run.status, 'succeeded');
    const shown = await t.db('sources').where({ id: source.id }).first('status', 'failures', 'next_run_at');
    assert.deepEqual([shown.status, shown.failures], ['idle', 0]);
    assert.ok(shown.next_run_at > new Date(), 'the schedule runs again');
  });

  it('waits out a short rate limit in place, and fails a run asked to wait longer than it may, starting the next after the wait', async () => {
    DATA.set('limited', [{ id: 'l1', title: 'L', count: 1 }]);
    FAILING.set('limited', { mode: 'limit', seconds: 1, times: 1 });
    const source = (await t.request.post(url()).set(owner.auth).send({ kind: 'fixture.failing', name: 'Limited', config: { dataset: 'limited' }, schedule: 'hourly' }).expect(201)).body;
    const started = Date.now();
    const waited = await ended(source.id, (await t.request.post(url(`/${source.id}/sync`)).set(owner.auth).send({}).expect(202)).body.run_id);
    assert.deepEqual([waited.status, waited.created], ['succeeded', 1]);
    assert.ok(Date.now() - started >= 1000, 'the run waited the second it was asked to');

    FAILING.set('limited', { mode: 'limit', seconds: 7200, times: 1 });
    const refused = await ended(source.id, (await t.request.post(url(`/${source.id}/sync`)).set(owner.auth).send({ full: true }).expect(202)).body.run_id);
    assert.equal(refused.status, 'failed');
    assert.match(refused.error, /7200 s/);
    const next = (await t.db('sources').where({ id: source.id }).first('next_run_at')).next_run_at as Date;
    assert.ok(next.getTime() >= started + 7000 * 1000, 'the next run waits as the provider asked');
  });

  it('erasing a member deletes the sources they made (nothing goes on writing as them); their database stays, with ordinary fields', async () => {
    const maker = await signUp(t);
    await joinWorkspace(t, owner, ws, maker, 'creator');
    DATA.set('erased', [{ id: 'e1', title: 'E', count: 1 }]);
    const source = (await t.request.post(url()).set(maker.auth).send({ kind: 'fixture.rows', name: 'Theirs', config: { dataset: 'erased' }, schedule: 'daily' }).expect(201)).body;
    await t.request.post(`/api/v1/workspaces/${ws}/members/${maker.id}/erase`).set(owner.auth).send({ confirm: maker.email }).expect(200);
    await t.request.get(url(`/${source.id}`)).set(owner.auth).expect(404);
    const fields = (await t.request.get(`/api/v1/workspaces/${ws}/databases/${source.database_id}/fields`).set(owner.auth).expect(200)).body.data as Array<{ synced: boolean }>;
    assert.ok(fields.length > 0 && fields.every((f) => !f.synced));
  });

  it('travels in a pack with its database: kind, config, schedule and fields by ref; installed idle, its fields synced, its first run reading everything', async () => {
    DATA.set('packed', [{ id: 'k1', title: 'K', count: 1 }]);
    const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(owner.auth).send({ name: 'Packed' }).expect(201)).body.id;
    const source = (await t.request.post(url()).set(owner.auth).send({ kind: 'fixture.rows', name: 'Packed rows', config: { dataset: 'packed' }, space_id: space, schedule: 'daily', delete_policy: 'keep' }).expect(201)).body;
    await ended(source.id, (await t.request.post(url(`/${source.id}/sync`)).set(owner.auth).send({}).expect(202)).body.run_id);
    const pack = (await t.request.post(`/api/v1/workspaces/${ws}/packs/export`).set(owner.auth).send({ space_ids: [space] }).expect(200)).body;
    assert.equal(pack.resources.source.length, 1);
    const [resource] = pack.resources.source;
    assert.deepEqual([resource.kind, resource.name, resource.schedule, resource.delete_policy, resource.connection, resource.config], ['fixture.rows', 'Packed rows', 'daily', 'keep', null, { dataset: 'packed' }]);
    assert.deepEqual(Object.keys(resource.fields).sort(), ['count', 'id', 'title']);
    assert.ok(!JSON.stringify(pack).includes(source.id) && !JSON.stringify(pack).includes(source.database_id), 'no id of the workspace it came from');

    const away = (await createWorkspace(t, owner)).id;
    const installed = (await t.request.post(`/api/v1/workspaces/${away}/packs/install`).set(owner.auth).send({ pack }).expect(201)).body;
    const [made] = installed.created.source;
    const copy = (await t.request.get(`/api/v1/workspaces/${away}/sources/${made.id}`).set(owner.auth).expect(200)).body;
    assert.deepEqual([copy.kind, copy.status, copy.schedule, copy.delete_policy, copy.last_run], ['fixture.rows', 'idle', 'daily', 'keep', null]);
    const fields = (await t.request.get(`/api/v1/workspaces/${away}/databases/${copy.database_id}/fields`).set(owner.auth).expect(200)).body.data as Array<{ api_name: string; synced: boolean }>;
    assert.deepEqual(fields.filter((f) => f.synced).map((f) => f.api_name).sort(), ['count', 'id', 'title']);
    const { run_id } = (await t.request.post(`/api/v1/workspaces/${away}/sources/${made.id}/sync`).set(owner.auth).send({}).expect(202)).body;
    const run = await endedRun(t, owner.auth, away, made.id, run_id);
    assert.equal(run.status, 'succeeded', run.error);
    assert.equal(run.created, 1);
  });

  it('the minute tick starts the runs of sources whose schedule is due, and sends again a run whose process stopped, which goes on from its last page', async () => {
    DATA.set('ticked', Array.from({ length: 5 }, (_, i) => ({ id: `t${i}`, title: `T${i}`, count: i })));
    const due = (await t.request.post(url()).set(owner.auth).send({ kind: 'fixture.rows', name: 'Due', config: { dataset: 'ticked' }, schedule: '15m' }).expect(201)).body;
    const later = (await t.request.post(url()).set(owner.auth).send({ kind: 'fixture.rows', name: 'Not yet', config: { dataset: 'ticked' }, schedule: 'daily' }).expect(201)).body;
    await t.db('sources').where({ id: due.id }).update({ next_run_at: new Date(Date.now() - 1000) });

    // A run whose process was killed after its first page: running, its cursor saved, silent for twenty minutes.
    const stopped = (await t.request.post(url()).set(owner.auth).send({ kind: 'fixture.rows', name: 'Killed', config: { dataset: 'ticked' } }).expect(201)).body;
    const [{ id: runId }] = await t.db('source_runs')
      .insert({ source_id: stopped.id, workspace_id: ws, status: 'running', trigger: 'manual', full: false, page_cursor: JSON.stringify({ page: 1 }), started_at: new Date(Date.now() - 1_200_000), heartbeat_at: new Date(Date.now() - 1_200_000) })
      .returning('id');

    const resolve = t.kernel.container.resolverFor('sources');
    await tick(t.db, resolve('sources.service'), (id) => t.kernel.jobs.send('sources.run', { runId: id }), silentLogger);
    const [scheduled] = (await t.request.get(url(`/${due.id}/runs`)).set(owner.auth).expect(200)).body.data;
    assert.equal(scheduled.trigger, 'schedule');
    assert.deepEqual([(await ended(due.id, scheduled.id)).created], [5]);
    assert.equal((await t.request.get(url(`/${later.id}/runs`)).set(owner.auth).expect(200)).body.data.length, 0, 'a schedule not yet due starts nothing');

    const resumed = await ended(stopped.id, runId);
    assert.equal(resumed.status, 'succeeded');
    assert.equal(resumed.created, 3, 'the first page (two rows) was written before the process stopped: the rest, once');
  });
});
