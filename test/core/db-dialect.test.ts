import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../core/db.ts';

/** The same knex calls must answer the same way on PGlite and PostgreSQL. */
describe('database dialect parity', () => {
  let db: Database;
  before(async () => {
    db = await openDatabase({ url: process.env.DATABASE_URL, schema: `dialect_${process.pid}_${Date.now()}` });
    await db.knex.raw('create table t (a int)');
    await db.knex('t').insert([{ a: 1 }, { a: 2 }, { a: 3 }]);
  });
  after(async () => {
    await db.knex.raw('drop schema ?? cascade', [db.schema]);
    await db.close();
  });

  it('delete() and update() return the number of affected rows', async () => {
    assert.equal(await db.knex('t').where('a', 1).delete(), 1);
    assert.equal(await db.knex('t').where('a', 42).delete(), 0);
    assert.equal(await db.knex('t').update({ a: 9 }), 2);
  });

  it('counts come back as numbers', async () => {
    const row = (await db.knex('t').count({ n: '*' }).first()) as { n: unknown };
    assert.equal(row.n, 2);
  });
});
