import assert from 'node:assert/strict';
import sharp from 'sharp';
import { createWorkspace, joinWorkspace, signUp, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { startBillingWorld, type BillingWorld } from './billing-kernel.ts';

/** A noisy PNG of `side`×`side`: noise does not compress, so its size grows with the side. */
const noisyPng = (side: number) => sharp({ create: { width: side, height: side, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).png().toBuffer();

describe('billing: plan limits, held at the writes that raise them', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let admin: SignedUpUser;

  let world: BillingWorld;
  before(async () => ({ t, admin } = world = await startBillingWorld()));
  after(() => world.stop());

  /** A new workspace (on the free plan: 10 records, 3 members) with one database. */
  async function workspaceWithDatabase(): Promise<{ ws: string; db: string; api: (path: string) => string }> {
    const ws = (await createWorkspace(t, admin)).id;
    const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;
    const space = (await t.request.post(api('/spaces')).set(admin.auth).send({ name: 'Work' }).expect(201)).body.id;
    const db = (await t.request.post(api('/databases')).set(admin.auth).send({ name: 'Tasks', space_id: space }).expect(201)).body.id;
    return { ws, db, api };
  }
  const liveCount = async (api: (path: string) => string, db: string) =>
    (await t.request.post(api(`/databases/${db}/records/query`)).set(admin.auth).send({ count: 'exact', limit: 1 }).expect(200)).body.count as number;
  const bulk = (api: (path: string) => string, db: string, n: number, from = 0) =>
    t.request.post(api(`/databases/${db}/records`)).set(admin.auth).send({ records: Array.from({ length: n }, (_, i) => ({ values: { name: `Task ${from + i}` } })) });

  it('refuses a bulk create that would cross the records limit whole (402, nothing written), and counts the trash out', async () => {
    const { db, api } = await workspaceWithDatabase();
    await bulk(api, db, 7).expect(201);
    const refused = await bulk(api, db, 4, 7).expect(402);
    assert.equal(refused.body.code, 'plan_limit_exceeded');
    assert.match(refused.headers['content-type'], /^application\/problem\+json/);
    assert.deepEqual({ meter: refused.body.meter, limit: refused.body.limit, used: refused.body.used, plan: refused.body.plan }, { meter: 'records', limit: 10, used: 7, plan: 'free' });
    assert.equal(await liveCount(api, db), 7);
    await bulk(api, db, 3, 7).expect(201);
    const one = await t.request.post(api(`/databases/${db}/records`)).set(admin.auth).send({ values: { name: 'Eleventh' } }).expect(402);
    assert.equal(one.body.used, 10);

    // Deleting makes room; restoring it again once the room is taken is refused.
    const first = (await t.request.get(api(`/databases/${db}/records`)).set(admin.auth).expect(200)).body.data[0].id;
    await t.request.delete(api(`/databases/${db}/records/${first}`)).set(admin.auth).expect(204);
    await t.request.post(api(`/databases/${db}/records`)).set(admin.auth).send({ values: { name: 'Instead' } }).expect(201);
    const restore = await t.request.post(api(`/databases/${db}/records/restore`)).set(admin.auth).send({ ids: [first] }).expect(402);
    assert.equal(restore.body.code, 'plan_limit_exceeded');
    assert.equal(await liveCount(api, db), 10);
    const usage = await t.request.get(api('/billing/usage')).set(admin.auth).expect(200);
    assert.equal(usage.body.usage.records, 10);
    assert.equal(usage.body.limits.records, 10);
    assert.equal(usage.body.plan, 'free');
  });

  it('tells a guest that a limit was reached, and nothing of what the workspace holds', async () => {
    const { ws, db, api } = await workspaceWithDatabase();
    const space = (await t.request.get(api(`/databases/${db}`)).set(admin.auth).expect(200)).body.space_id;
    const guest = await signUp(t);
    await joinWorkspace(t, admin, ws, guest, 'guest', [space]);
    await t.request.put(api('/access')).set(admin.auth).send({ scope_type: 'database', scope_id: db, user_id: guest.id, role: 'editor' }).expect(201);
    await bulk(api, db, 10).expect(201);
    const refused = await t.request.post(api(`/databases/${db}/records`)).set(guest.auth).send({ values: { name: 'One more' } }).expect(402);
    assert.equal(refused.body.code, 'plan_limit_exceeded');
    assert.deepEqual([refused.body.meter, refused.body.limit, refused.body.used, refused.body.plan], [undefined, undefined, undefined, undefined]);
    assert.ok(!/10|free|records/.test(refused.body.detail), refused.body.detail);
  });

  it('lets exactly as many of 100 simultaneous creates through as the limit leaves room for', async () => {
    const { db, api } = await workspaceWithDatabase();
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => t.request.post(api(`/databases/${db}/records`)).set(admin.auth).send({ values: { name: `Racer ${i}` } })));
    const statuses = answers.map((a) => a.status);
    assert.equal(statuses.filter((s) => s === 201).length, 10, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 402).length, 90);
    assert.equal(await liveCount(api, db), 10);
  });

  it('frees the records of a deleted database', async () => {
    const { ws, db, api } = await workspaceWithDatabase();
    await bulk(api, db, 10).expect(201);
    const name = (await t.request.get(api(`/databases/${db}`)).set(admin.auth).expect(200)).body.name;
    await t.request.delete(api(`/databases/${db}`)).set(admin.auth).send({ confirm: name }).expect(204);
    const usage = await t.request.get(`/api/v1/workspaces/${ws}/billing/usage`).set(admin.auth).expect(200);
    assert.equal(usage.body.usage.records, 0);
  });

  it('refuses a fourth member (3 on free) when the invite is accepted, and counts a removal out', async () => {
    const { ws, api } = await workspaceWithDatabase();
    const [ann, bob, cy] = [await signUp(t), await signUp(t), await signUp(t)];
    await joinWorkspace(t, admin, ws, ann, 'editor');
    await joinWorkspace(t, admin, ws, bob, 'member');
    const invite = await t.request.post(api('/invites')).set(admin.auth).send({ email: cy.email, role: 'member' }).expect(201);
    const token = String(invite.body.accept_url).split('/').pop();
    // Not yet a member: told that a limit was reached, not which, nor how many are in.
    const refused = await t.request.post(`/api/v1/invites/${token}/accept`).set(cy.auth).expect(402);
    assert.equal(refused.body.code, 'plan_limit_exceeded');
    assert.deepEqual([refused.body.meter, refused.body.limit, refused.body.used, refused.body.plan], [undefined, undefined, undefined, undefined]);
    assert.equal((await t.request.get(api('/billing/usage')).set(admin.auth).expect(200)).body.usage.members, 3);
    assert.equal((await t.request.get(api('/members')).set(admin.auth).expect(200)).body.data.length, 3);
    await t.request.delete(api(`/members/${bob.id}`)).set(admin.auth).expect(204);
    await t.request.post(`/api/v1/invites/${token}/accept`).set(cy.auth).expect(200);
    assert.equal((await t.request.get(api('/billing')).set(admin.auth).expect(200)).body.seats, 3);
  });

  it('refuses a file past the storage limit, keeping none of its bytes', async () => {
    const { ws, api } = await workspaceWithDatabase();
    const small = await noisyPng(40);
    const big = await noisyPng(76);
    assert.ok(big.length < 20_000 && small.length + big.length > 20_000, `${small.length} ${big.length}`);
    const kept = await t.request.post(api('/files')).set(admin.auth).attach('file', small, { filename: 'small.png', contentType: 'image/png' }).expect(201);
    const refused = await t.request.post(api('/files')).set(admin.auth).attach('file', big, { filename: 'big.png', contentType: 'image/png' }).expect(402);
    assert.deepEqual({ meter: refused.body.meter, used: refused.body.used, limit: refused.body.limit }, { meter: 'storage_bytes', used: small.length, limit: 20_000 });
    assert.deepEqual(await t.db('files').where({ workspace_id: ws }).pluck('id'), [kept.body.id]);
    await t.request.post(api(`/files/${kept.body.id}/revoke`)).set(admin.auth).expect(200);
    await t.request.post(api('/files')).set(admin.auth).attach('file', big, { filename: 'big.png', contentType: 'image/png' }).expect(201);
  });

  it('counts automation runs per month: past the limit an inbound hook answers 402 and a triggered run is stored canceled', async () => {
    const { db, api } = await workspaceWithDatabase();
    const hook = (await t.request.post(api('/automations')).set(admin.auth).send({ name: 'In', database_id: db, enabled: true, trigger: { type: 'inbound_webhook' }, actions: [{ type: 'update_record', values: { name: 'x' } }] }).expect(201)).body;
    const path = new URL(hook.hook_url).pathname;
    await t.request.post(path).send({ n: 1 }).expect(202);
    await t.request.post(path).send({ n: 2 }).expect(202);
    // The sender holds only the hook's address: it learns that a limit was reached, not the workspace's plan.
    const third = await t.request.post(path).send({ n: 3 }).expect(402);
    assert.deepEqual([third.body.code, third.body.meter], ['plan_limit_exceeded', undefined]);
    await t.request.post(api('/automations')).set(admin.auth).send({ name: 'On create', database_id: db, enabled: true, trigger: { type: 'record_created' }, actions: [{ type: 'update_record', values: { name: 'Seen' } }] }).expect(201);
    await t.request.post(api(`/databases/${db}/records`)).set(admin.auth).send({ values: { name: 'New' } }).expect(201);
    const runs: Array<{ status: string; reason: string | null }> = await t.db('automation_runs').where({ workspace_id: (await t.db('automations').where({ id: hook.id }).first('workspace_id')).workspace_id }).select('status', 'reason');
    assert.equal(runs.length, 3);
    const canceled = runs.filter((r) => r.status === 'canceled');
    assert.equal(canceled.length, 1);
    assert.match(canceled[0].reason!, /no automation runs left this month/);
    const usage = await t.request.get(api('/billing/usage')).set(admin.auth).expect(200);
    assert.equal(usage.body.usage.automation_runs_per_month, 2);
  });
});
