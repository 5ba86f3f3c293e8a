import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { waitUntil } from '../../fixtures/wait.ts';

/** Row counts of every table of the instance's schema: what a refused request must not change. */
async function snapshot(t: TestKernel): Promise<Record<string, number>> {
  const tables = await t.db('information_schema.tables')
    .where({ table_schema: t.db.raw('current_schema()'), table_type: 'BASE TABLE' })
    .whereNot('table_name', 'like', 'knex_%')
    .pluck('table_name');
  const counts: Record<string, number> = {};
  for (const table of tables.sort()) counts[table] = Number((await t.db(table).count({ n: '*' }))[0].n);
  return counts;
}

describe('tenancy: no mass assignment, no orphans', () => {
  let t: TestKernel;
  let admin: SignedUpUser;
  let member: SignedUpUser;
  let ws: string;
  let space: string;

  before(async () => {
    t = await startTestKernel();
    admin = await signUp(t);
    member = await signUp(t);
    ws = (await createWorkspace(t, admin)).id;
    await t.db('workspace_members').insert({ workspace_id: ws, user_id: member.id, role: 'member' });
    space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
  });
  after(() => t.stop());

  it('refuses bodies carrying role, workspace_id, id or created_by where the route does not take them (422), storing nothing', async () => {
    const forged = { id: '00000000-0000-4000-8000-000000000001', workspace_id: ws, created_by: member.id, role: 'admin' };
    const cases: Array<[string, string, object, string[]]> = [
      ['post', '/workspaces', { name: 'W' }, ['id', 'workspace_id', 'created_by', 'role']],
      ['patch', `/workspaces/${ws}`, { name: 'W' }, ['id', 'workspace_id', 'created_by', 'role']],
      ['patch', `/workspaces/${ws}/members/${member.id}`, { role: 'member' }, ['id', 'workspace_id', 'created_by']],
      ['post', `/workspaces/${ws}/invites`, { email: 'x@example.test', role: 'member' }, ['id', 'workspace_id', 'created_by']],
      ['post', `/workspaces/${ws}/spaces`, { name: 'S2' }, ['id', 'workspace_id', 'created_by', 'role']],
      ['patch', `/workspaces/${ws}/spaces/${space}`, { name: 'S2' }, ['id', 'workspace_id', 'created_by', 'role']],
      ['post', `/workspaces/${ws}/spaces/${space}/folders`, { name: 'F' }, ['id', 'workspace_id', 'created_by', 'role']],
      ['post', `/workspaces/${ws}/databases`, { name: 'D', space_id: space }, ['id', 'workspace_id', 'created_by', 'role']],
      ['put', `/workspaces/${ws}/access`, { scope_type: 'space', scope_id: space, user_id: member.id, role: 'editor' }, ['id', 'workspace_id', 'created_by']],
      ['patch', `/workspaces/${ws}/getting-started`, { dismissed: true }, ['id', 'workspace_id', 'role']],
      ['patch', '/me', { name: 'Me' }, ['id', 'role', 'created_by']],
      ['post', '/me/tokens', { name: 'T', workspace_id: ws }, ['id', 'created_by', 'role']],
      ['post', '/referrals/attribute', { code: 'ABC' }, ['id', 'created_by']],
    ];
    const before = await snapshot(t);
    for (const [method, path, valid, keys] of cases) {
      for (const key of keys) {
        const res = await (t.request as any)[method](`/api/v1${path}`).set(admin.auth).send({ ...valid, [key]: (forged as Record<string, string>)[key] });
        assert.equal(res.status, 422, `${method} ${path} with ${key}: ${res.status} ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(res.body.errors.some((e: { pointer: string }) => e.pointer === `/${key}`), `${method} ${path} with ${key}: ${JSON.stringify(res.body.errors)}`);
      }
    }
    assert.deepEqual(await snapshot(t), before);
  });

  it('deleting a workspace while others write into it leaves no row of it behind, and touches no other workspace', async () => {
    const doomed = (await createWorkspace(t, admin)).id;
    const kept = (await createWorkspace(t, admin)).id;
    const seed = async (w: string) => {
      await t.db('workspace_members').insert({ workspace_id: w, user_id: member.id, role: 'member' });
      const s = (await t.request.post(`/api/v1/workspaces/${w}/spaces`).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
      await t.request.post(`/api/v1/workspaces/${w}/spaces/${s}/folders`).set(admin.auth).send({ name: 'F' }).expect(201);
      await t.request.post(`/api/v1/workspaces/${w}/databases`).set(admin.auth).send({ name: 'D', space_id: s }).expect(201);
      await t.request.post(`/api/v1/workspaces/${w}/invites`).set(admin.auth).send({ email: `i-${w}@example.test`, role: 'editor' }).expect(201);
      await t.request.put(`/api/v1/workspaces/${w}/access`).set(admin.auth).send({ scope_type: 'space', scope_id: s, user_id: member.id, role: 'editor' }).expect(201);
      await t.request.post('/api/v1/me/tokens').set(member.auth).send({ name: 'm', workspace_id: w }).expect(201);
      await t.request.patch(`/api/v1/workspaces/${w}/getting-started`).set(member.auth).send({ dismissed: true }).expect(200);
      return s;
    };
    const doomedSpace = await seed(doomed);
    await seed(kept);
    const keptBefore = await rowsOf(t, kept);

    // Writers race the deletion; each either lands before it (and is deleted with it) or fails.
    const writers = Array.from({ length: 15 }, (_, i) => {
      const r = t.request;
      switch (i % 5) {
        case 4: return r.post(`/api/v1/workspaces/${doomed}/databases`).set(admin.auth).send({ name: `race ${i}`, space_id: doomedSpace });
        case 0: return r.post(`/api/v1/workspaces/${doomed}/spaces`).set(admin.auth).send({ name: `race ${i}` });
        case 1: return r.post(`/api/v1/workspaces/${doomed}/spaces/${doomedSpace}/folders`).set(admin.auth).send({ name: `race ${i}` });
        case 2: return r.post(`/api/v1/workspaces/${doomed}/invites`).set(admin.auth).send({ email: `race-${i}@example.test`, role: 'member' });
        default: return r.post('/api/v1/me/tokens').set(admin.auth).send({ name: `race ${i}`, workspace_id: doomed });
      }
    });
    const [deletion, ...results] = await Promise.all([t.request.delete(`/api/v1/workspaces/${doomed}`).set(admin.auth), ...writers]);
    assert.equal(deletion.status, 204);
    for (const res of results) assert.ok([201, 404, 422].includes(res.status), `a racing write answered ${res.status} ${JSON.stringify(res.body)}`);

    assert.deepEqual(await rowsOf(t, doomed), {}, 'rows of the deleted workspace');
    assert.deepEqual(await rowsOf(t, kept), keptBefore, 'the other workspace is untouched');
    const orphanFolders = await t.db('folders as f').leftJoin('spaces as s', 's.id', 'f.space_id').whereNull('s.id').count({ n: '*' });
    assert.equal(Number(orphanFolders[0].n), 0);
    // Every records table belongs to a database that still exists, once the job has dropped the deleted ones.
    const known = await t.db('databases').pluck('table_name');
    const orphans = async () => {
      const tables = await t.db('information_schema.tables').where({ table_schema: t.db.raw('current_schema()') }).where('table_name', 'like', 'rec\\_%').pluck('table_name');
      return tables.filter((name: string) => !known.includes(name));
    };
    await waitUntil('no records table of no database', async () => (await orphans()).length === 0);
  });
});

/** Every row, in any table with a workspace_id column (the event log aside), that belongs to `ws`. */
async function rowsOf(t: TestKernel, ws: string): Promise<Record<string, number>> {
  const tables = await t.db('information_schema.columns')
    .where({ table_schema: t.db.raw('current_schema()'), column_name: 'workspace_id' })
    .whereNot('table_name', 'kernel_events')
    .pluck('table_name');
  const out: Record<string, number> = {};
  for (const table of tables.sort()) {
    const n = Number((await t.db(table).where({ workspace_id: ws }).count({ n: '*' }))[0].n);
    if (n > 0) out[table] = n;
  }
  return out;
}
