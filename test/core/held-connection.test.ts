import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import { StrayQueryError } from '../../core/held-connection.ts';
import { recordsWorld } from '../plugins/records/setup.ts';

describe('one connection: a query its own transaction waits for', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel();
  });
  after(() => t.stop());

  it('fails at once on PGlite instead of waiting for the connection the transaction holds', async function () {
    if (t.kernel.database.kind !== 'pglite') this.skip();
    const started = Date.now();
    await assert.rejects(
      t.db.transaction(async (trx) => {
        await trx.raw('SELECT 1');
        await t.db.raw('SELECT 2');
      }),
      StrayQueryError,
    );
    assert.ok(Date.now() - started < 5_000, 'answered without waiting for the acquire timeout');
    // Queries on the transaction, and root queries once it has ended, run as ever.
    assert.equal((await t.db.transaction((trx) => trx.raw('SELECT 3 AS n'))).rows[0].n, 3);
    assert.equal((await t.db.raw('SELECT 4 AS n')).rows[0].n, 4);
  });
});

describe('views of a database on either side of a relation', () => {
  it('are changed at once, on PGlite as on PostgreSQL (the check once ran outside the transaction and froze the server 60 s)', async () => {
    const w = await recordsWorld();
    try {
      const api = (path: string) => `/api/v1/workspaces/${w.ws}${path}`;
      const space = (await w.t.db('databases').where({ id: w.db }).first('space_id')).space_id;
      const other = (await w.t.request.post(api('/databases')).set(w.admin.auth).send({ name: 'Other', space_id: space }).expect(201)).body.id;
      await w.t.request.post(api('/relations')).set(w.admin.auth).send({ from_database_id: w.db, to_database_id: other, kind: 'many_to_many', from_field_name: 'Others', to_field_name: 'Ds' }).expect(201);
      for (const db of [w.db, other]) {
        const [view] = (await w.t.request.get(api(`/databases/${db}/views`)).set(w.admin.auth).expect(200)).body.data;
        const filter = { field: db === w.db ? 'others' : 'ds', op: 'is_not_empty' };
        const res = await w.t.request.patch(api(`/databases/${db}/views/${view.id}`)).set(w.admin.auth).send({ name: 'Linked', filter }).expect(200);
        assert.deepEqual([res.body.name, res.body.filter], ['Linked', filter]);
        await w.t.request.post(api(`/databases/${db}/views`)).set(w.admin.auth).send({ name: 'Second', type: 'grid', filter }).expect(201);
        await w.t.request.put(api(`/databases/${db}/views/${view.id}/overrides`)).set(w.member.auth).send({ filter }).expect(200);
      }
    } finally {
      await w.t.stop();
    }
  });
});
