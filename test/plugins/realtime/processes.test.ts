import assert from 'node:assert/strict';
import { createWorkspace, signUp, startTestKernel, type TestKernel } from '../../../core/testing.ts';
import { openStream } from './sse-client.ts';

describe('realtime: every process delivers every event', function () {
  this.timeout(60_000);
  let a: TestKernel;
  let b: TestKernel;

  before(async function () {
    if (!process.env.DATABASE_URL) return this.skip(); // PGlite is one process
    const config = { jobs: { pollingIntervalSeconds: 0.5 }, plugins: { realtime: { options: { heartbeatSeconds: 1 } } } };
    a = await startTestKernel({ config });
    // A second process on the same database, as a cluster worker or another machine would be.
    b = await startTestKernel({ config, storage: a.storage });
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('streams on one process what was written through another, and replays it on the other', async () => {
    const admin = await signUp(a);
    const ws = (await createWorkspace(a, admin)).id;
    const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;
    const space = (await a.request.post(api('/spaces')).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
    const db = (await a.request.post(api('/databases')).set(admin.auth).send({ name: 'D', space_id: space }).expect(201)).body.id;
    const onA = await openStream(a, admin.token, ws, { topics: `database:${db}` });
    // The other process learns within a second that someone listens.
    await new Promise((r) => setTimeout(r, 1500));
    await b.request.post(api(`/databases/${db}/records`)).set(admin.auth).send({ values: { name: 'Written on B' } }).expect(201);
    const seen = await onA.next((e) => e.event === 'record.created');
    assert.equal(seen.data.payload.record.values.name, 'Written on B');
    await a.request.post(api(`/databases/${db}/records`)).set(admin.auth).send({ values: { name: 'Written on A' } }).expect(201);
    await onA.next((e) => e.data.payload.record?.values.name === 'Written on A');
    onA.close();

    const onB = await openStream(b, admin.token, ws, { topics: `database:${db}`, lastEventId: seen.id! });
    await onB.next((e) => e.data.payload.record?.values.name === 'Written on A');
    assert.deepEqual(onB.events.map((e) => e.data.payload.record.values.name), ['Written on A']);
    onB.close();
  });
});
